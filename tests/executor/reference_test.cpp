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

namespace {

dasim::schedules::ScheduleSpec diloco(int H, dasim::schedules::OuterOptimizer optimizer, double lr) {
  dasim::schedules::ScheduleSpec s{ScheduleKind::diloco, H, 0};
  s.outer = {optimizer, lr, optimizer == dasim::schedules::OuterOptimizer::nesterov ? 0.9 : 0.0};
  return s;
}

}  // namespace

// DiLoCo with the sgd outer optimizer at lr 1: global - mean(global - w_j) = mean(w_j), which is
// local SGD's average (Douillard et al. 2023 note the equivalence to FedAvg).
TEST(Reference, DilocoWithOuterSgdLrOneIsLocalSgd) {
  const auto local = run_reference({ScheduleKind::local_sgd, 3, 0}, kWidths, 9, shards(2), kBatch, kLr, 12);
  const auto outer = run_reference(diloco(3, dasim::schedules::OuterOptimizer::sgd, 1.0), kWidths, 9,
                                   shards(2), kBatch, kLr, 12);
  expect_close(outer.weights[0], local.weights[0]);
  expect_close(outer.weights[1], local.weights[1]);
}

// Nesterov outer steps by hand for two workers and H = 2, over two outer rounds: the momentum
// carries over, and both workers restart from the same global weights.
TEST(Reference, DilocoNesterovMatchesHandComposition) {
  const auto data = shards(2);
  Mlp m[2] = {Mlp(kWidths, 9), Mlp(kWidths, 9)};
  std::vector<float> global = m[0].weights(), momentum(global.size(), 0.0f);
  std::vector<float> x;
  std::vector<int32_t> y;
  for (long k = 1; k <= 4; ++k) {
    for (int j = 0; j < 2; ++j) {
      fill_batch(data[j], k - 1, kBatch, x, y);
      m[j].forward_backward(x.data(), y.data(), kBatch);
      for (size_t i = 0; i < m[j].weights().size(); ++i) m[j].weights()[i] -= kLr * m[j].grads()[i];
    }
    if (k % 2 != 0) continue;
    for (size_t i = 0; i < global.size(); ++i) {
      const float d = ((global[i] - m[0].weights()[i]) + (global[i] - m[1].weights()[i])) / 2.0f;
      momentum[i] = 0.9f * momentum[i] + d;
      global[i] -= 0.7f * (d + 0.9f * momentum[i]);
      m[0].weights()[i] = m[1].weights()[i] = global[i];
    }
  }
  const auto ref = run_reference(diloco(2, dasim::schedules::OuterOptimizer::nesterov, 0.7), kWidths, 9,
                                 shards(2), kBatch, kLr, 4);
  expect_close(ref.weights[0], global);
  expect_close(ref.weights[1], global);
}

// Streaming DiLoCo with alpha 0.5 keeps half of the local progress made during the overlap: the
// replicas differ after the run, where alpha 0 with one fragment makes them equal at k0 + d.
TEST(Reference, StreamingDilocoAlphaKeepsLocalProgress) {
  dasim::schedules::ScheduleSpec s{ScheduleKind::streaming_diloco, 2, 1};
  s.fragments = 1;
  const auto overwrite = run_reference(s, kWidths, 9, shards(2), kBatch, kLr, 5);  // outer step of 4 at 5
  EXPECT_EQ(overwrite.weights[0], overwrite.weights[1]);
  s.alpha = 0.5;
  const auto mixed = run_reference(s, kWidths, 9, shards(2), kBatch, kLr, 5);
  EXPECT_NE(mixed.weights[0], mixed.weights[1]);
}

// Eager DiLoCo by hand for two workers, H = 2, outer sgd at lr 1 over three rounds: each worker's
// outer weights move by (own fresh + the other's previous) / 2, so they differ between workers.
TEST(Reference, EagerDilocoMatchesHandComposition) {
  const auto data = shards(2);
  Mlp m[2] = {Mlp(kWidths, 9), Mlp(kWidths, 9)};
  std::vector<float> global[2] = {m[0].weights(), m[0].weights()};
  std::vector<float> own_prev[2] = {std::vector<float>(global[0].size(), 0.0f),
                                    std::vector<float>(global[0].size(), 0.0f)};
  std::vector<float> x;
  std::vector<int32_t> y;
  for (long k = 1; k <= 6; ++k) {
    for (int j = 0; j < 2; ++j) {
      fill_batch(data[j], k - 1, kBatch, x, y);
      m[j].forward_backward(x.data(), y.data(), kBatch);
      for (size_t i = 0; i < m[j].weights().size(); ++i) m[j].weights()[i] -= kLr * m[j].grads()[i];
    }
    if (k % 2 != 0) continue;
    std::vector<float> own[2];
    for (int j = 0; j < 2; ++j) {
      own[j] = global[j];
      for (size_t i = 0; i < own[j].size(); ++i) own[j][i] -= m[j].weights()[i];
    }
    for (int j = 0; j < 2; ++j) {
      for (size_t i = 0; i < own[j].size(); ++i) {
        const float other_prev = own_prev[1 - j][i];  // sum(r-1) - own(r-1): the other worker's
        global[j][i] -= 1.0f * ((own[j][i] + other_prev) / 2.0f);
        m[j].weights()[i] = global[j][i];
      }
    }
    own_prev[0] = own[0];
    own_prev[1] = own[1];
  }
  auto s = diloco(2, dasim::schedules::OuterOptimizer::sgd, 1.0);
  s.eager = true;
  const auto ref = run_reference(s, kWidths, 9, shards(2), kBatch, kLr, 6);
  expect_close(ref.weights[0], global[0]);
  expect_close(ref.weights[1], global[1]);
  EXPECT_NE(ref.weights[0], ref.weights[1]);
}
