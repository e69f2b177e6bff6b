// The three schedules against closed forms, on the two-layer workload of two_layer_fixture.hpp.
#include "two_layer_fixture.hpp"

#include <gtest/gtest.h>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

TEST(Schedules, InfiniteBandwidthGivesComputeTimeAndLinearSpeedup) {
  for (auto schedule : {sgd(true), periodic(schedules::ScheduleKind::local_sgd, 4, 0)}) {
    auto c = config(8, schedule, 1e18);
    c.platform.nics[0].link.latency_s = 0;
    auto r8 = simulate(c);
    auto r1 = simulate(config(1, schedule));
    EXPECT_NEAR(r8.iter_time_s, kStep, 1e-6 * kStep) << schedules::describe(schedule);
    EXPECT_NEAR(r1.iter_time_s, kStep, 1e-9);
    // speedup = throughput(8) / throughput(1) = 8 x (t1 / t8)
    EXPECT_NEAR(8 * r1.iter_time_s / r8.iter_time_s, 8.0, 1e-5);
    EXPECT_NEAR(r8.compute_s, kStep, 1e-9);
  }
}

TEST(Schedules, SgdWithoutOverlapIsComputePlusTheGradientAllreduce) {
  for (int p : {2, 8}) {
    auto r = simulate(config(p, sgd(false, 1e12)));  // one bucket holding all 40e6 B
    double expected = kStep + ring(p, kWeights);
    EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected) << "P=" << p;
    EXPECT_NEAR(r.exposed_comm_s, ring(p, kWeights), 1e-3 * ring(p, kWeights));
  }
}

TEST(Schedules, SgdOverlapHidesTheFirstBucketBehindBackward) {
  // 25 MiB cap: layer b (20e6 B) closes no bucket alone? It does not reach 26.2e6 B, so both
  // layers share one bucket and nothing can overlap; with a 10 MB cap each layer is a bucket and
  // bucket 0 (layer b) runs during layer a's 8 ms backward.
  auto one_bucket = simulate(config(8, sgd(true)));
  auto two_buckets = simulate(config(8, sgd(true, 10e6)));
  EXPECT_NEAR(one_bucket.iter_time_s, kStep + ring(8, kWeights), 1e-3 * kStep);
  EXPECT_LT(two_buckets.exposed_comm_s, one_bucket.exposed_comm_s);
  // Bucket 0 (2.8 ms) fits in layer a's backward; bucket 1 then runs alone after backward.
  double expected = kStep + ring(8, 20e6);
  EXPECT_NEAR(two_buckets.iter_time_s, expected, 2e-3 * expected);
}

TEST(Schedules, LocalSgdPaysTheWeightAllreduceOncePerTau) {
  for (int tau : {1, 4}) {
    auto r = simulate(config(8, periodic(schedules::ScheduleKind::local_sgd, tau, 0)));
    double expected = kStep + ring(8, kWeights) / tau;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected) << "tau=" << tau;
    EXPECT_NEAR(r.exposed_comm_s, ring(8, kWeights) / tau, 1e-3 * ring(8, kWeights));
  }
}

TEST(Schedules, DasgdHidesAnAllreduceShorterThanDSteps) {
  // allreduce(40e6) on 8 ranks = 5.63 ms < one 24.2 ms step.
  auto r = simulate(config(8, periodic(schedules::ScheduleKind::dasgd, 4, 1)));
  EXPECT_NEAR(r.exposed_comm_s, 0.0, 1e-12);
  double expected = kStep + (kSnapshot + kApply) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-6 * expected);
  EXPECT_NEAR(kStep / r.iter_time_s, 1.0, (kSnapshot + kApply) / 4 / kStep + 1e-9);
  EXPECT_NEAR(r.comm_s, ring(8, kWeights) / 4, 1e-3 * ring(8, kWeights));
}

TEST(Schedules, DasgdExposesOnlyWhatDoesNotFitInDSteps) {
  // At 1e9 B/s allreduce(40e6) on 8 ranks = 70.03 ms: with d = 1 the wait is 70.03 - 24.2 ms per
  // period of 4 steps; with d = 2, 70.03 - 2 x 24.2 ms.
  const double allreduce = ring(8, kWeights, 1e9);
  for (int d : {1, 2}) {
    auto r = simulate(config(8, periodic(schedules::ScheduleKind::dasgd, 4, d), 1e9));
    double exposed_per_period = allreduce - d * kStep;
    EXPECT_NEAR(r.exposed_comm_s * 4, exposed_per_period, 1e-3 * exposed_per_period) << "d=" << d;
    double expected = kStep + (kSnapshot + kApply + exposed_per_period) / 4;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected) << "d=" << d;
  }
}

TEST(Schedules, StragglerSlowsTheSynchronousClusterAndJitterIsDeterministic) {
  auto c = config(4, sgd(false, 1e12));
  c.slowdown_by_rank[2] = 1.5;
  auto r = simulate(c);
  EXPECT_NEAR(r.iter_time_s, 1.5 * kStep + ring(4, kWeights), 2e-3 * kStep);
  // The three fast ranks wait half a step for the straggler inside the allreduce; the straggler
  // only pays the ring. The mean hides that, the per-rank maximum shows it.
  const double waiting = 0.5 * kStep + ring(4, kWeights);
  EXPECT_NEAR(r.exposed_comm_max_s, waiting, 2e-3 * kStep);
  EXPECT_NEAR(r.exposed_comm_s, (3 * waiting + ring(4, kWeights)) / 4, 2e-3 * kStep);
  EXPECT_GE(r.comm_max_s, r.comm_s);
  auto j = config(4, periodic(schedules::ScheduleKind::dasgd, 4, 1));
  j.jitter_stddev = 0.1;
  j.seed = 7;
  auto a = simulate(j), b = simulate(j);
  EXPECT_EQ(a.iter_time_s, b.iter_time_s);
  EXPECT_GT(a.iter_time_s, kStep * 1.0001);  // the max of jittered workers is slower than the mean
}

TEST(Schedules, AStragglerDelaysATreeAllreduceWithoutShorteningIt) {
  // NCCL's trees reduce a chunk at a parent only once every child's has come and buffer a few
  // chunks per connection, so the allreduce runs when the last rank arrives, over the same flows
  // as when all arrive together: with rank 2 1.5x slower, the step is 1.5 x compute plus the same
  // tree allreduce (the early ranks' edges do not move the message ahead of the straggler).
  for (int p : {8, 16}) {
    auto c = config(p, sgd(false, 1e12));
    c.collective.algorithm = collectives::Algorithm::tree;
    const double tree_s = simulate(c).iter_time_s - kStep;
    EXPECT_GT(tree_s, 0.5 * ring(p, kWeights)) << p;  // a real allreduce, not a no-op
    c.slowdown_by_rank[2] = 1.5;
    EXPECT_NEAR(simulate(c).iter_time_s, 1.5 * kStep + tree_s, 1e-9 * kStep) << p;
  }
}

}  // namespace

namespace {

// Host-progressed collectives (MPI on CPU ranks) advance only inside the wait: DaSGD's averaging
// then costs the whole allreduce at k0 + d, and sgd's buckets all run after backward, however
// they are split. Polled ones (see below) run from their start but cost the rank's core the same
// allreduce, in its polls: without lag between the ranks, the same DaSGD step.
TEST(Schedules, HostProgressExposesTheWholeAllreduce) {
  for (auto progress : {collectives::Progress::host, collectives::Progress::polled}) {
    auto dasgd = config(8, periodic(schedules::ScheduleKind::dasgd, 4, 1));
    dasgd.collective.progress = progress;
    auto r = simulate(dasgd);
    EXPECT_NEAR(r.exposed_comm_s * 4, ring(8, kWeights), 1e-3 * ring(8, kWeights));
    double expected = kStep + (kSnapshot + kApply + ring(8, kWeights)) / 4;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected);
  }

  auto sgd_host = config(8, sgd(true, 10e6));
  sgd_host.collective.progress = collectives::Progress::host;
  auto s = simulate(sgd_host);
  // Two 20e6-byte buckets started together share the links: the bandwidth term of 40e6 bytes,
  // their latency terms overlapping.
  EXPECT_NEAR(s.iter_time_s, kStep + ring(8, kWeights), 2e-3 * kStep);
}

}  // namespace

namespace {

// Polled collectives (MPI on CPU ranks that call MPI_Test between layers) start when issued and
// cost each rank their active time on its own core, whether inside the final wait or inside the
// polls before it. sgd's first 20e6-byte bucket, started 8 ms before the end of backward, is done
// by then (2.8 ms) but its copies were paid in the polls; the second runs in the wait: the step
// pays both, 2 x ring(8, 20e6).
TEST(Schedules, PolledProgressPaysEachCollectiveOnce) {
  auto sgd_polled = config(8, sgd(true, 10e6));
  sgd_polled.collective.progress = collectives::Progress::polled;
  auto s = simulate(sgd_polled);
  EXPECT_NEAR(s.iter_time_s, kStep + 2 * ring(8, 20e6), 1e-3 * kStep);
  EXPECT_NEAR(s.exposed_comm_s, 2 * ring(8, 20e6), 1e-3 * ring(8, 20e6));

  // Without overlap both buckets start after backward and share the links: each one's active
  // time stretches to the whole 40e6-byte allreduce, which the rank pays once, not twice.
  auto together = config(8, sgd(false, 10e6));
  together.collective.progress = collectives::Progress::polled;
  auto t = simulate(together);
  EXPECT_NEAR(t.iter_time_s, kStep + ring(8, kWeights), 2e-3 * kStep);
}

// A rank 1.5x slower throughout: the fast rank waits at each merge for the average the slow
// rank starts late, so the cluster moves at the slow rank's period P = 1.5 x (4 steps + snapshot
// + apply) + the allreduce A (its own copies, paid in its polls). Every second of the fast rank's
// period that is not its compute C = 4 steps + snapshot + apply is waiting or polls: exposed per
// iteration, mean of the 2 ranks, = (A + P - C) / 8.
// With polled_rounds the same: the fast rank waits inside MPI_Wait when the slow rank starts the
// average, so the slow rank's starting call does both its copies (the allreduce) at once.
TEST(Schedules, PolledDasgdWithAStragglerMovesAtItsPace) {
  for (auto progress : {collectives::Progress::polled, collectives::Progress::polled_rounds}) {
    auto c = config(2, periodic(schedules::ScheduleKind::dasgd, 4, 1));
    c.slowdown_by_rank[1] = 1.5;
    c.warmup_iterations = 8;  // the first merge, before the lead has built up, waits less
    c.collective.progress = progress;
    auto r = simulate(c);
    const double allreduce = ring(2, kWeights), own = 4 * kStep + kSnapshot + kApply;
    const double period = 1.5 * own + allreduce;
    EXPECT_NEAR(r.iter_time_s, period / 4, 1e-3 * period / 4);
    EXPECT_NEAR(r.exposed_comm_s, (allreduce + period - own) / 8, 1e-3 * period / 8);
  }
}

// polled_rounds, ranks in step: each rank copies its two chunks of 20e6 B (ring(2, 40e6) in all)
// inside its start call and the polls between the next step's layers, done before its merge, so
// DaSGD costs each rank exactly the allreduce per period and never waits.
TEST(Schedules, PolledRoundsDasgdInStepPaysTheAllreduceInItsPolls) {
  auto c = config(2, periodic(schedules::ScheduleKind::dasgd, 4, 1));
  c.collective.progress = collectives::Progress::polled_rounds;
  auto r = simulate(c);
  const double allreduce = ring(2, kWeights);
  EXPECT_NEAR(r.exposed_comm_s * 4, allreduce, 1e-3 * allreduce);
  const double expected = kStep + (kSnapshot + kApply + allreduce) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected);
}

// Ranks a little out of step: with 2% per-step jitter the ranks' lag after 4 steps is about
// 0.02 x 24.2 ms x 2 x sqrt(2) = 1.4 ms (growing as sqrt(periods): about 6 ms over the 16 periods
// simulated), far inside DaSGD's slack of one step minus the allreduce (24.2 - 3.2 = 21 ms). A
// polled average started at k0 is then complete at every rank's merge, and each rank pays exactly
// the allreduce per period. Host progress instead starts it at the merge, where every rank waits
// for the slowest to arrive: more than the allreduce.
TEST(Schedules, PolledDasgdAbsorbsSmallLagHostProgressDoesNot) {
  auto c = config(2, periodic(schedules::ScheduleKind::dasgd, 4, 1));
  c.jitter_stddev = 0.02;
  c.seed = 3;
  c.measured_iterations = 64;
  c.collective.progress = collectives::Progress::polled;
  const double allreduce = ring(2, kWeights);
  auto polled = simulate(c);
  EXPECT_NEAR(polled.exposed_comm_s * 4, allreduce, 1e-3 * allreduce);
  c.collective.progress = collectives::Progress::host;
  auto host = simulate(c);
  EXPECT_GT(host.exposed_comm_s * 4, allreduce * 1.05);
}

}  // namespace

// Gradient accumulation over A micro-batches: A x (forward + backward) = A x 24 ms; each
// micro-batch after the first adds its gradients into the step's, 3 gradient-sized streams
// (3 x 40e6 B / 1e12 B/s = 0.12 ms; the first stores them, zero_grad set_to_none); one update
// (0.2 ms); the gradients allreduced once, after the last micro-batch's backward.
TEST(Schedules, AccumulationComputesEveryMicroBatchAndAllreducesOnce) {
  for (int a : {1, 4}) {
    auto s = sgd(false, 1e12);  // one bucket of all 40e6 B
    s.accumulation_steps = a;
    const auto r = simulate(config(8, s));
    const double expected = a * 24e-3 + (a - 1) * 0.12e-3 + 0.2e-3 + ring(8, kWeights);
    EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected) << "A=" << a;
    EXPECT_NEAR(r.exposed_comm_s, ring(8, kWeights), 1e-3 * ring(8, kWeights)) << "A=" << a;
    EXPECT_NEAR(r.step_compute_s, a * 24e-3 + (a - 1) * 0.12e-3 + 0.2e-3, 1e-9) << "A=" << a;
  }
  // With overlap only the last micro-batch's backward hides a bucket: bucket 0 (layer b, 20e6 B)
  // behind layer a's backward, bucket 1 after it, as without accumulation.
  auto overlapped = sgd(true, 10e6);
  overlapped.accumulation_steps = 4;
  const double expected = 4 * 24e-3 + 3 * 0.12e-3 + 0.2e-3 + ring(8, 20e6);
  EXPECT_NEAR(simulate(config(8, overlapped)).iter_time_s, expected, 2e-3 * expected);
}

TEST(Schedules, AccumulationInLocalSgdMultipliesTheLocalStepNotTheAveraging) {
  auto s = periodic(schedules::ScheduleKind::local_sgd, 4, 0);
  s.accumulation_steps = 3;
  const auto r = simulate(config(8, s));
  const double expected = 3 * 24e-3 + 2 * 0.12e-3 + 0.2e-3 + ring(8, kWeights) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected);
}
