// The serial reference of the schedules (what `dasim-train --verify` compares the MPI run with)
// against step-by-step hand compositions on a tiny model: DaSGD with d = 1 and d = 2 applies
// avg(snapshots at k0) + local progress since k0 exactly at k0 + d; local SGD with tau = 1 follows
// synchronous SGD's trajectory to float tolerance.
#include "reference.hpp"
#include "mlp.hpp"

#include <gtest/gtest.h>

using namespace dasim::executor;
using dasim::schedules::ScheduleKind;

namespace {

const std::vector<int> kWidths{4, 5, 3};
constexpr int kBatch = 3;
constexpr float kLr = 0.1f;

std::vector<Dataset> shards(int n) {
  SyntheticSpec spec{4, 3, 60, 1.0, 5};
  std::vector<Dataset> s;
  for (int r = 0; r < n; ++r) s.push_back(make_synthetic_shard(spec, r, n));
  return s;
}

// Two workers, written out step by step: local step, then at k0 + d the merge, then at multiples of
// tau the snapshot.
std::vector<std::vector<float>> hand_dasgd(int tau, int d, int steps) {
  const auto data = shards(2);
  Mlp m[2] = {Mlp(kWidths, 9), Mlp(kWidths, 9)};
  std::vector<float> snap[2];
  long merge_at = -1;
  std::vector<float> x;
  std::vector<int32_t> y;
  auto merge = [&] {
    for (int j = 0; j < 2; ++j)
      for (size_t i = 0; i < snap[j].size(); ++i) {
        const float avg = (snap[0][i] + snap[1][i]) / 2.0f;
        m[j].weights()[i] = avg + (m[j].weights()[i] - snap[j][i]);
      }
    merge_at = -1;
  };
  for (long k = 1; k <= steps; ++k) {
    for (int j = 0; j < 2; ++j) {
      fill_batch(data[j], k - 1, kBatch, x, y);
      m[j].forward_backward(x.data(), y.data(), kBatch);
      for (size_t i = 0; i < m[j].weights().size(); ++i) m[j].weights()[i] -= kLr * m[j].grads()[i];
    }
    if (k == merge_at) merge();
    if (k % tau == 0) {
      snap[0] = m[0].weights();
      snap[1] = m[1].weights();
      merge_at = k + d;
    }
  }
  if (merge_at != -1) merge();
  return {m[0].weights(), m[1].weights()};
}

void expect_close(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6) << "parameter " << i;
}

}  // namespace

TEST(Reference, DasgdDelayOneMatchesHandComposition) {
  const auto ref = run_reference({ScheduleKind::dasgd, 2, 1}, kWidths, 9, shards(2), kBatch, kLr, 6);
  const auto hand = hand_dasgd(2, 1, 6);
  expect_close(ref.weights[0], hand[0]);
  expect_close(ref.weights[1], hand[1]);
}

TEST(Reference, DasgdDelayTwoMatchesHandComposition) {
  const auto ref = run_reference({ScheduleKind::dasgd, 2, 2}, kWidths, 9, shards(2), kBatch, kLr, 7);
  const auto hand = hand_dasgd(2, 2, 7);
  expect_close(ref.weights[0], hand[0]);
  expect_close(ref.weights[1], hand[1]);
}

TEST(Reference, DelayChangesTheTrajectory) {
  const auto d1 = run_reference({ScheduleKind::dasgd, 2, 1}, kWidths, 9, shards(2), kBatch, kLr, 6);
  const auto local = run_reference({ScheduleKind::local_sgd, 2, 0}, kWidths, 9, shards(2), kBatch, kLr, 6);
  EXPECT_NE(d1.weights[0], local.weights[0]);
  EXPECT_EQ(local.weights[0], local.weights[1]);  // step 6 is an averaging step
  // Step 5 merges the step-4 snapshots and adds back one step of different local progress.
  const auto d1_5 = run_reference({ScheduleKind::dasgd, 2, 1}, kWidths, 9, shards(2), kBatch, kLr, 5);
  EXPECT_NE(d1_5.weights[0], d1_5.weights[1]);
}

TEST(Reference, LocalSgdTauOneFollowsSgd) {
  const auto sgd = run_reference({ScheduleKind::sgd, 1, 0}, kWidths, 9, shards(2), kBatch, kLr, 20);
  const auto local = run_reference({ScheduleKind::local_sgd, 1, 0}, kWidths, 9, shards(2), kBatch, kLr, 20);
  expect_close(sgd.weights[0], local.weights[0]);
  for (size_t k = 0; k < sgd.mean_loss.size(); ++k) EXPECT_NEAR(sgd.mean_loss[k], local.mean_loss[k], 1e-5);
}
