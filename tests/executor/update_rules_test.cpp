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

dasim::schedules::ScheduleSpec diloco_spec(dasim::schedules::OuterOptimizer optimizer, double lr, double mu,
                                           double alpha) {
  dasim::schedules::ScheduleSpec s{dasim::schedules::ScheduleKind::streaming_diloco, 4, 1};
  s.outer = {optimizer, lr, mu};
  s.alpha = alpha;
  return s;
}

TEST(UpdateRules, OuterGradientIsGlobalMinusLocalOnTheFragmentOnly) {
  std::vector<float> delta{7.0f, 7.0f, 7.0f};
  outer_gradient({1.0f, 2.0f, 3.0f}, {0.5f, 2.5f, 0.0f}, delta, 1, 1);
  EXPECT_EQ(delta, (std::vector<float>{7.0f, -0.5f, 7.0f}));
}

TEST(UpdateRules, NesterovOuterStepByHand) {
  // Two workers, outer gradients 0.2 and 0.6 -> D = 0.4; momentum 0.5 before: m = 0.9 * 0.5 + 0.4 =
  // 0.85; global 1.0 - 0.7 (0.4 + 0.9 * 0.85) = 1.0 - 0.7 * 1.165 = 0.1845; alpha 0: w = global.
  std::vector<float> global{1.0f}, m{0.5f}, w{3.0f};
  outer_step(global, m, {0.8f}, w, diloco_spec(dasim::schedules::OuterOptimizer::nesterov, 0.7, 0.9, 0), 2, 0,
             1);
  EXPECT_FLOAT_EQ(m[0], 0.85f);
  EXPECT_FLOAT_EQ(global[0], 0.1845f);
  EXPECT_FLOAT_EQ(w[0], 0.1845f);
}

TEST(UpdateRules, SgdOuterStepWithLrOneIsModelAveragingAndAlphaMixesTheLocalCopy) {
  // Global 2, local copies 1 and 4 -> outer gradients 1 and -2, D = -0.5: global 2.5 = the mean of
  // the local copies. alpha 0.25 keeps a quarter of this worker's local weight 1: 0.25 + 0.75 * 2.5.
  std::vector<float> global{2.0f}, m{0.0f}, w{1.0f};
  outer_step(global, m, {-1.0f}, w, diloco_spec(dasim::schedules::OuterOptimizer::sgd, 1.0, 0, 0.25), 2, 0,
             1);
  EXPECT_FLOAT_EQ(global[0], 2.5f);
  EXPECT_FLOAT_EQ(w[0], 0.25f + 0.75f * 2.5f);
  EXPECT_FLOAT_EQ(m[0], 0.0f);  // sgd keeps no momentum
}

TEST(UpdateRules, EagerCombinationIsOwnFreshPlusTheOthersOfTheRoundBefore) {
  // Worker A's outer gradients 1.0 (round r-1) and 2.0 (round r); the round-(r-1) sum over A and B
  // was 1.0 + 5.0 = 6.0: A applies 2.0 + (6.0 - 1.0) = 7.0 as its sum (then / n in the outer step).
  std::vector<float> comb(2, 0.0f);
  eager_combination(comb, {2.0f, 2.0f}, {6.0f, 6.0f}, {1.0f, 1.0f}, true, 1, 1);
  EXPECT_EQ(comb, (std::vector<float>{0.0f, 7.0f}));
  eager_combination(comb, {2.0f, 3.0f}, {6.0f, 6.0f}, {1.0f, 1.0f}, false, 0, 2);  // the first round
  EXPECT_EQ(comb, (std::vector<float>{2.0f, 3.0f}));
}

TEST(UpdateRules, HashSeesOneBitFlip) {
  std::vector<float> a{1.0f, 2.0f}, b{1.0f, std::nextafter(2.0f, 3.0f)};
  EXPECT_EQ(weights_hash(a), weights_hash(std::vector<float>{1.0f, 2.0f}));
  EXPECT_NE(weights_hash(a), weights_hash(b));
}
