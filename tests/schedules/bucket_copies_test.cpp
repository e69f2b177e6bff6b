// DDP's bucket copies (gradient_as_bucket_view = false, PyTorch's default and dasim's) against
// closed forms, on the two-layer workload of two_layer_fixture.hpp (memory 1e12 B/s): each bucket
// costs a copy in (read + write of its bytes: 2 x bytes / 1e12 B/s) on the compute stream before
// its allreduce and a copy out after it, before the update. 40e6 B: 0.08 ms; 20e6 B: 0.04 ms.
#include "two_layer_fixture.hpp"

#include <gtest/gtest.h>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

constexpr double kExact = 1e-12;  // seconds: the simulation gives these closed forms to rounding

schedules::ScheduleSpec copies(schedules::ScheduleSpec s) {
  s.bucket_view = false;
  return s;
}

// One bucket of 40e6 B after backward: copy in, allreduce (exposed), copy out, update.
TEST(BucketCopies, OneBucketPaysACopyInAndACopyOut) {
  constexpr double kCopy = 0.08e-3;
  auto r = simulate(config(8, copies(sgd(false, 1e12))));
  const double expected = kStep + kCopy + ring(8, kWeights) + kCopy;
  EXPECT_NEAR(r.iter_time_s, expected, kExact);
  EXPECT_NEAR(r.compute_s, kStep + 2 * kCopy, kExact);
  EXPECT_NEAR(r.exposed_comm_s, ring(8, kWeights), kExact);
  // bucket_view: the buckets are the gradients, no copies; one GPU runs no DDP reducer.
  auto view = simulate(config(8, sgd(false, 1e12)));
  EXPECT_NEAR(r.iter_time_s - view.iter_time_s, 2 * kCopy, kExact);
  EXPECT_NEAR(simulate(config(1, copies(sgd(false, 1e12)))).iter_time_s, kStep, kExact);
}

// Two buckets of 20e6 B (10 MB cap), overlapped: fwd 8, b's backward 8, copy in 0.04, bucket 0's
// allreduce beside a's backward 8 (done within it), copy in 0.04, bucket 1's allreduce
// A = ring(8, 20e6), during which bucket 0's copy out (0.04) runs, then bucket 1's copy out 0.04
// and the update: kStep + 3 x 0.04 ms + A; compute kStep + 4 x 0.04 ms.
TEST(BucketCopies, ACopyOutRunsBesideTheNextBucketsAllreduce) {
  constexpr double kCopy = 0.04e-3;
  const double a = ring(8, 20e6);
  auto r = simulate(config(8, copies(sgd(true, 10e6))));
  EXPECT_NEAR(r.iter_time_s, kStep + 3 * kCopy + a, kExact);
  EXPECT_NEAR(r.compute_s, kStep + 4 * kCopy, kExact);
  EXPECT_NEAR(r.exposed_comm_s, a - kCopy, kExact);
}

// Islands of 2 GPUs (local SGD, tau 4): the island's sgd step copies its one 40e6 B bucket in and
// out around ring(2, 40e6); the averaging of the weights between islands copies nothing.
TEST(BucketCopies, IslandStepsPayThemToo) {
  constexpr double kCopy = 0.08e-3;
  auto local = periodic(schedules::ScheduleKind::local_sgd, 4, 0);
  local.island_gpus = 2;
  auto r = simulate(config(8, copies(local)));
  const double expected = kStep + 2 * kCopy + ring(2, kWeights) + ring(8, kWeights) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, kExact);
  EXPECT_NEAR(r.compute_s, kStep + 2 * kCopy, kExact);
}

// With interference (f = 0.25) bucket 0's copy out, run beside bucket 1's allreduce, is slowed:
// 0.04 x 1.25 ms, still inside A; the copy in of bucket 1 runs beside nothing (bucket 0 is done).
// Beside bucket 0's allreduce A: a's backward, slowed by A f / (1 + f), as without copies.
TEST(BucketCopies, CopiesBesideACollectiveAreSlowedToo) {
  constexpr double kCopy = 0.04e-3, f = 0.25;
  const double a = ring(8, 20e6);
  auto c = config(8, copies(sgd(true, 10e6)));
  c.calibration.fitted.compute_slowdown_under_collective = f;
  auto r = simulate(c);
  EXPECT_NEAR(r.compute_slowdown_s, a * f / (1 + f) + kCopy * f, kExact);
  EXPECT_NEAR(r.iter_time_s, kStep + 3 * kCopy + a + a * f / (1 + f), kExact);
}

}  // namespace
