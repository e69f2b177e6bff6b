// Compute-communication interference against closed forms, on the two-layer workload of
// two_layer_fixture.hpp (forward 4 + 4 ms, backward 8 + 8 ms, update 0.2 ms). With calibration
// compute_slowdown_under_collective = f, compute that runs while a collective of its GPU is in
// flight takes (1 + f) times as long for exactly the overlapped part: a collective in flight for
// a wall time W over compute slows it by W f / (1 + f) (W / (1 + f) of its work, done (1 + f)
// times slower), or, if it outlasts a compute of t, by t f. The collectives' own times do not change.
#include "two_layer_fixture.hpp"

#include <gtest/gtest.h>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

constexpr double kExact = 1e-12;  // seconds: the simulation gives these closed forms to rounding

engine::TrainingConfig with_slowdown(engine::TrainingConfig c, double f) {
  c.calibration.fitted.compute_slowdown_under_collective = f;
  return c;
}

// 10 MB cap: bucket 0 is layer b (20e6 B), started after b's backward; its allreduce
// A = ring(8, 20e6) = 2.83 ms runs beside the first A of layer a's 8 ms backward, which then takes
// 8 + A f / (1 + f). Bucket 1 (layer a) starts after backward, alone: iteration
// = kStep + A (bucket 1, exposed) + A f / (1 + f). f = 0 is the model without interference.
TEST(Interference, SlowsTheBackwardAPartlyOverlappedBucketRunsBeside) {
  const double a = ring(8, 20e6);
  for (double f : {0.0, 0.25, 0.5}) {
    auto r = simulate(with_slowdown(config(8, sgd(true, 10e6)), f));
    const double slowdown = a * f / (1 + f);
    EXPECT_NEAR(r.compute_slowdown_s, slowdown, kExact) << "f=" << f;
    EXPECT_NEAR(r.compute_s, kStep + slowdown, kExact) << "f=" << f;
    EXPECT_NEAR(r.iter_time_s, kStep + a + slowdown, kExact) << "f=" << f;
    // Exact against the simulated allreduce itself: both buckets take comm_s / 2.
    EXPECT_NEAR(r.compute_slowdown_s, r.comm_s / 2 * f / (1 + f), kExact) << "f=" << f;
    EXPECT_NEAR(r.exposed_comm_s, a, kExact) << "f=" << f;
  }
  auto none = simulate(config(8, sgd(true, 10e6)));
  auto zero = simulate(with_slowdown(config(8, sgd(true, 10e6)), 0));
  EXPECT_EQ(zero.iter_time_s, none.iter_time_s);  // f = 0: nothing changes, to the bit
  EXPECT_EQ(zero.compute_s, none.compute_s);
  EXPECT_EQ(zero.compute_slowdown_s, 0.0);
}

// Layer a without parameters: one bucket (layer b, 20e6 B), started after b's backward, whose
// allreduce on 2 GPUs at 1 GB/s, A = 20e6 / 1e9 + 4 us = 20.004 ms, outlasts the whole of layer
// a's backward even slowed, t1 (1 + f) = 8 x 1.5 = 12 ms: the backward takes t1 (1 + f), the rank
// then waits A - t1 (1 + f), and the iteration is forward + b's backward + A + update (0.1 ms).
TEST(Interference, AnAllreduceOutlastingTheBackwardSlowsAllOfIt) {
  auto c = with_slowdown(config(2, sgd(true), 1e9), 0.5);
  c.workload.layers[0].params = 0;
  auto r = simulate(c);
  const double a = ring(2, 20e6, 1e9), t1 = 8e-3, update = 0.1e-3;
  EXPECT_NEAR(r.compute_slowdown_s, t1 * 0.5, kExact);
  EXPECT_NEAR(r.compute_s, 8e-3 + 16e-3 + update + t1 * 0.5, kExact);
  EXPECT_NEAR(r.exposed_comm_s, a - t1 * 1.5, kExact);
  EXPECT_NEAR(r.iter_time_s, 8e-3 + 8e-3 + a + update, kExact);
}

// DaSGD (tau 4, d 1): the snapshot's allreduce A = ring(8, 40e6) = 5.63 ms, started after step
// k0, runs beside the first A of step k0 + 1's 8 ms forward, which it slows by A f / (1 + f): the
// "hidden" averaging costs that per period of 4 steps, and is still not waited for.
TEST(Interference, DasgdPaysForTheComputeItsHiddenAveragingOverlaps) {
  const double a = ring(8, kWeights), f = 0.25;
  auto r = simulate(with_slowdown(config(8, periodic(schedules::ScheduleKind::dasgd, 4, 1)), f));
  EXPECT_NEAR(r.exposed_comm_s, 0.0, kExact);
  EXPECT_NEAR(r.compute_slowdown_s * 4, a * f / (1 + f), kExact);
  EXPECT_NEAR(r.compute_slowdown_s * 4, r.comm_s * 4 * f / (1 + f), kExact);
  const double expected = kStep + (kSnapshot + kApply + a * f / (1 + f)) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, kExact);
}

// At 1 GB/s A = ring(8, 40e6, 1e9) = 70.03 ms outlasts step k0 + 1 even slowed (24.2 x 1.25 =
// 30.25 ms): the whole step is slowed, kStep f, and the merge waits A - kStep (1 + f). A period is
// then A + 3 kStep + snapshot + apply, as without interference: the slowdown moves into the wait.
TEST(Interference, DasgdWithALongAveragingSlowsTheWholeOverlapStep) {
  const double a = ring(8, kWeights, 1e9), f = 0.25;
  auto r = simulate(with_slowdown(config(8, periodic(schedules::ScheduleKind::dasgd, 4, 1), 1e9), f));
  EXPECT_NEAR(r.compute_slowdown_s * 4, kStep * f, kExact);
  EXPECT_NEAR(r.exposed_comm_s * 4, a - kStep * (1 + f), kExact);
  const double expected = (a + 3 * kStep + kSnapshot + kApply) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, kExact);
}

// A blocking averaging (local SGD) and a single GPU overlap nothing; host-progressed collectives
// (MPI on CPU ranks) run inside the wait, polled ones in the rank's own calls: no kernels beside
// the compute, no slowdown.
TEST(Interference, NothingOverlappedNothingSlowed) {
  auto local = simulate(with_slowdown(config(8, periodic(schedules::ScheduleKind::local_sgd, 4, 0)), 0.5));
  EXPECT_EQ(local.compute_slowdown_s, 0.0);
  EXPECT_NEAR(local.iter_time_s, kStep + ring(8, kWeights) / 4, kExact);
  auto one = simulate(with_slowdown(config(1, sgd(true, 10e6)), 0.5));
  EXPECT_EQ(one.compute_slowdown_s, 0.0);
  EXPECT_NEAR(one.iter_time_s, kStep, kExact);
  for (auto progress : {collectives::Progress::host, collectives::Progress::polled}) {
    auto c = config(8, periodic(schedules::ScheduleKind::dasgd, 4, 1));
    c.collective.progress = progress;
    auto without = simulate(c);
    auto with = simulate(with_slowdown(c, 0.5));
    EXPECT_EQ(with.compute_slowdown_s, 0.0);
    EXPECT_EQ(with.iter_time_s, without.iter_time_s);
  }
}

}  // namespace
