// The schedule arithmetic against hand computations (ALGORITHMS.md): the sgd step with an allreduced
// gradient sum, local SGD's average, and DaSGD's avg + (w - snapshot) for a two-worker example.
#include "update_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace dasim::executor;

TEST(UpdateRules, SgdAppliesMeanGradient) {
  std::vector<float> w{1.0f, -2.0f};
  sgd_apply(w, {4.0f, 2.0f}, 0.5f, 2);  // mean gradient {2, 1}, step 0.5
  EXPECT_FLOAT_EQ(w[0], 0.0f);
  EXPECT_FLOAT_EQ(w[1], -2.5f);
}

TEST(UpdateRules, AverageFromSum) {
  std::vector<float> w{9.0f, 9.0f};
  average_from_sum(w, {3.0f, -1.0f}, 2);
  EXPECT_FLOAT_EQ(w[0], 1.5f);
  EXPECT_FLOAT_EQ(w[1], -0.5f);
}

TEST(UpdateRules, DasgdMergeIsAverageOfSnapshotsPlusLocalProgress) {
  // Worker A snapshot 1.0, worker B snapshot 3.0 -> average 2.0. Since the snapshot A moved to 0.75
  // (local progress -0.25): merged value 2.0 - 0.25 = 1.75.
  std::vector<float> w{0.75f};
  dasgd_merge(w, {1.0f}, {1.0f + 3.0f}, 2);
  EXPECT_FLOAT_EQ(w[0], 1.75f);
}

TEST(UpdateRules, DasgdMergeWithoutProgressIsPlainAverage) {
  std::vector<float> w{1.0f, 5.0f};
  dasgd_merge(w, {1.0f, 5.0f}, {4.0f, 6.0f}, 2);
  EXPECT_FLOAT_EQ(w[0], 2.0f);
  EXPECT_FLOAT_EQ(w[1], 3.0f);
}

TEST(UpdateRules, HashSeesOneBitFlip) {
  std::vector<float> a{1.0f, 2.0f}, b{1.0f, std::nextafter(2.0f, 3.0f)};
  EXPECT_EQ(weights_hash(a), weights_hash(std::vector<float>{1.0f, 2.0f}));
  EXPECT_NE(weights_hash(a), weights_hash(b));
}
