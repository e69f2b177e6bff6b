// Top-k with error feedback, against hand computations: what is sent, what stays in the residual
// for the next round, the tie rule, and the sum of the gathered pairs.
#include "top_k.hpp"

#include <gtest/gtest.h>

using namespace dasim::executor;

namespace {

std::vector<std::pair<int32_t, float>> pairs(const std::vector<SparseEntry>& sent) {
  std::vector<std::pair<int32_t, float>> out;
  for (const auto& e : sent) out.emplace_back(e.index, e.value);
  return out;
}

}  // namespace

TEST(TopKErrorFeedback, CountIsTheCeilingOfTheDensityAndAtLeastOne) {
  EXPECT_EQ(top_k_count(0.1, 25), 3);  // 2.5 -> 3
  EXPECT_EQ(top_k_count(0.1, 30), 3);
  EXPECT_EQ(top_k_count(1e-9, 30), 1);
}

TEST(TopKErrorFeedback, SendsTheLargestMagnitudesInIndexOrderAndKeepsTheRestForTheNextRound) {
  std::vector<float> residual(4, 0.0f), sent_delta{1, -5, 3, 0.5f};
  std::vector<SparseEntry> sent;
  top_k_select(residual, sent_delta, 0, 4, 2, sent);
  EXPECT_EQ(pairs(sent), (std::vector<std::pair<int32_t, float>>{{1, -5.0f}, {2, 3.0f}}));
  EXPECT_EQ(residual, (std::vector<float>{1, 0, 0, 0.5f}));
  // Next round: the unsent 1 and 0.5 have grown; error feedback sends them now.
  top_k_select(residual, std::vector<float>{0.5f, 0.25f, 0, 1}, 0, 4, 2, sent);
  EXPECT_EQ(pairs(sent), (std::vector<std::pair<int32_t, float>>{{0, 1.5f}, {3, 1.5f}}));
  EXPECT_EQ(residual, (std::vector<float>{0, 0.25f, 0, 0}));
}

TEST(TopKErrorFeedback, WorksOnItsFragmentOnlyAndBreaksTiesByTheLowerIndex) {
  std::vector<float> residual(5, 0.0f), delta{9, 2, -2, 1, 9};
  std::vector<SparseEntry> sent;
  top_k_select(residual, delta, 1, 3, 1, sent);  // the fragment [1, 4): 2, -2, 1
  EXPECT_EQ(pairs(sent), (std::vector<std::pair<int32_t, float>>{{0, 2.0f}}));  // index inside the fragment
  EXPECT_EQ(residual, (std::vector<float>{0, 0, -2, 1, 0}));
}

TEST(TopKErrorFeedback, AddsEveryWorkersPairsAtTheirPlaceInTheFragment) {
  std::vector<float> sum(5, 0.0f);
  const std::vector<SparseEntry> gathered{{0, 1}, {2, 2}, {0, 3}, {1, 4}};  // two workers, k = 2
  add_sparse(sum, gathered.data(), 4, 1);
  EXPECT_EQ(sum, (std::vector<float>{0, 4, 4, 2, 0}));
}
