// Fully sharded data parallelism (data_parallel: fsdp) against closed forms, on the two-layer
// workload of two_layer_fixture.hpp (two layers of 5 M fp32 parameters, 20e6 B each; forward 4 ms
// and backward 8 ms each; optimizer 0.2 ms over all 10 M parameters) on flat-100gbe, one GPU per
// node: a ring phase (a reduce-scatter or an all-gather) of S bytes over P GPUs takes
// (P - 1) / P x S / 12.5e9 B/s + (P - 1) x 2 us.
#include "two_layer_fixture.hpp"

#include <gtest/gtest.h>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

double fsdp_ring_phase(int p, double bytes) {
  return (p - 1.0) / p * bytes / 12.5e9 + (p - 1) * 2e-6;
}

schedules::ScheduleSpec fsdp_sgd(double unit_cap_bytes) {
  auto s = sgd(true, unit_cap_bytes);
  s.bucket_view = false;  // fsdp has no DDP bucket copies to leave out
  s.data_parallel = schedules::DataParallel::fsdp;
  return s;
}

constexpr double kUpdate = 0.2e-3, kCompute = 24e-3;  // the step's optimizer, and forward + backward

TEST(Fsdp, GathersTheFirstUnitAndReduceScattersTheLastInTheOpenTheRestBehindCompute) {
  // A unit per layer (cap 20e6 B). Forward: gather a (exposed), then b's gather behind a's 4 ms.
  // Backward: b stays gathered (forward ended with it), a's gather behind b's 8 ms, b's
  // reduce-scatter behind a's backward, a's reduce-scatter exposed. Each GPU updates 1/8.
  auto r = simulate(config(8, fsdp_sgd(20e6)));
  const double phase = fsdp_ring_phase(8, 20e6);
  const double expected = phase + kCompute + phase + kUpdate / 8;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
  EXPECT_NEAR(r.exposed_comm_s, 2 * phase, 1e-3 * phase);
  EXPECT_NEAR(r.comm_s, 5 * phase, 1e-3 * phase);  // 3 gathers and 2 reduce-scatters, one at a time
  EXPECT_NEAR(r.step_compute_s, kCompute + kUpdate / 8, 1e-12);
}

TEST(Fsdp, OneUnitIsGatheredOnceAndNothingHidesIt) {
  // One unit of both layers: its gather before forward and its reduce-scatter after backward are
  // exposed; backward needs no second gather (the unit forward ended with stays).
  auto r = simulate(config(8, fsdp_sgd(25.0 * 1024 * 1024)));
  const double phase = fsdp_ring_phase(8, kWeights);
  const double expected = 2 * phase + kCompute + kUpdate / 8;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
  EXPECT_NEAR(r.comm_s, 2 * phase, 1e-3 * phase);
}

TEST(Fsdp, OneGpuComputesAlone) {
  auto r = simulate(config(1, fsdp_sgd(20e6)));
  EXPECT_NEAR(r.iter_time_s, kCompute + kUpdate, 1e-9);
  EXPECT_NEAR(r.exposed_comm_s, 0.0, 1e-12);
}

TEST(Fsdp, ShardedIslandsAverageEachShardAmongTheGpusOfItsIndex) {
  // DiLoCo H = 4 over 4 islands of 2 GPUs, one unit: per step the island's gather and
  // reduce-scatter (2 GPUs) exposed and 1/2 of the update; every 4 steps GPU r of each island
  // allreduces its 20e6-byte shard with the 3 others (two rings of 4, on disjoint nodes) and runs
  // the outer passes on its half: 3 + 7 streams of 20e6 B at 1e12 B/s.
  auto s = periodic(schedules::ScheduleKind::diloco, 4, 0);
  s.bucket_view = false;
  s.island_gpus = 2;
  s.data_parallel = schedules::DataParallel::fsdp;
  auto r = simulate(config(8, s));
  const double inner = 2 * fsdp_ring_phase(2, kWeights) + kCompute + kUpdate / 2;
  const double outer = ring(4, kWeights / 2) + (3 + 7) * (kWeights / 2) / 1e12;
  const double expected = inner + outer / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
  EXPECT_NEAR(r.exposed_comm_s, 2 * fsdp_ring_phase(2, kWeights) + ring(4, kWeights / 2) / 4,
              1e-3 * expected);
}

TEST(Fsdp, ShardedIslandsQuantizeTheirShard) {
  // 8-bit outer gradients: the shard's 5 M elements sent as 5e6 B, quantized and dequantized on
  // the shard ((4 + 1) B x 5 M each way).
  auto s = periodic(schedules::ScheduleKind::diloco, 4, 0);
  s.bucket_view = false;
  s.island_gpus = 2;
  s.data_parallel = schedules::DataParallel::fsdp;
  s.payload_bits = 8;
  auto r = simulate(config(8, s));
  const double inner = 2 * fsdp_ring_phase(2, kWeights) + kCompute + kUpdate / 2;
  const double outer = ring(4, 5e6) + (3 + 7) * (kWeights / 2) / 1e12 + 2 * 5 * 5e6 / 1e12;
  const double expected = inner + outer / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
}

TEST(Fsdp, DescribesItself) {
  EXPECT_EQ(schedules::describe(fsdp_sgd(20e6)), "sgd(fsdp)");
  auto s = periodic(schedules::ScheduleKind::local_sgd, 4, 0);
  s.bucket_view = false;
  s.island_gpus = 8;
  s.data_parallel = schedules::DataParallel::fsdp;
  EXPECT_EQ(schedules::describe(s), "local_sgd(tau=4,island=8,fsdp)");
}

}  // namespace
