// The DiLoCo family and payload compression against closed forms, on the two-layer workload of
// two_layer_fixture.hpp (10 M fp32 parameters in two layers of 5 M; memory 1e12 B/s). Passes over
// the weights, each 40e6 B / 1e12 B/s = 0.04 ms per weight-sized stream:
//   outer gradient (global - local): 3 streams = 0.12 ms; Nesterov outer step: 7 streams = 0.28 ms;
//   a quantize / dequantize pass to b bits: (4 + b/8) B x 10 M / 1e12 B/s.
// Streaming DiLoCo's fragments are the two layers (20e6 B each), so each pass costs half.
#include "two_layer_fixture.hpp"
#include "workers/step_plan.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

constexpr double kOuterGradient = 0.12e-3, kOuterStep = 0.28e-3;

schedules::ScheduleSpec diloco(int H) {
  return periodic(schedules::ScheduleKind::diloco, H, 0);
}

schedules::ScheduleSpec streaming(int H, int fragments, int overlap) {
  auto s = periodic(schedules::ScheduleKind::streaming_diloco, H, overlap);
  s.fragments = fragments;
  return s;
}

double codec(double params, int bits) {
  return params * (4 + bits / 8.0) / 1e12;
}

TEST(Diloco, ExposesTheWholeAllreduceOncePerHSteps) {
  for (int H : {1, 4}) {
    auto r = simulate(config(8, diloco(H)));
    const double exposed = ring(8, kWeights) / H;
    EXPECT_NEAR(r.exposed_comm_s, exposed, 1e-3 * exposed) << "H=" << H;
    const double expected = kStep + (ring(8, kWeights) + kOuterGradient + kOuterStep) / H;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected) << "H=" << H;
  }
}

TEST(Diloco, OuterSgdStepStreamsFiveWeightSizedPasses) {
  auto s = diloco(4);
  s.outer.optimizer = schedules::OuterOptimizer::sgd;
  auto r = simulate(config(1, s));  // one GPU: no communication, only the passes
  EXPECT_NEAR(r.iter_time_s, kStep + (kOuterGradient + 5 * 0.04e-3) / 4, 1e-9);
}

TEST(StreamingDiloco, HidesAFragmentAllreduceShorterThanTheOverlap) {
  // ring(8, 20e6) = 2.8 ms < one step: every fragment's average arrives within its overlap step.
  auto r = simulate(config(8, streaming(4, 2, 1)));
  EXPECT_NEAR(r.exposed_comm_s, 0.0, 1e-12);
  const double expected = kStep + 2 * (kOuterGradient + kOuterStep) / 2 / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-6 * expected);
  EXPECT_NEAR(r.comm_s, 2 * ring(8, kWeights / 2) / 4, 1e-3 * ring(8, kWeights / 2));
}

TEST(StreamingDiloco, ExposesWhatAFragmentAllreduceTakesBeyondTheOverlap) {
  // At 0.25e9 B/s ring(8, 20e6) = 140 ms: with overlap d the rank waits ring - d x step per
  // fragment, P = 2 fragments per H = 4 steps (one at a time: each is applied before the next starts).
  const double link = 0.25e9, fragment = ring(8, kWeights / 2, link);
  for (int d : {1, 2}) {
    auto r = simulate(config(8, streaming(4, 2, d), link));
    const double exposed = 2 * (fragment - d * kStep) / 4;
    EXPECT_NEAR(r.exposed_comm_s, exposed, 1e-3 * exposed) << "d=" << d;
    const double expected = kStep + exposed + 2 * (kOuterGradient + kOuterStep) / 2 / 4;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected) << "d=" << d;
  }
}

TEST(EagerDiloco, HidesAnAllreduceShorterThanARoundAndExposesTheRest) {
  auto s = diloco(4);
  s.eager = true;
  constexpr double kEagerStep = kOuterStep + 0.12e-3;  // + 3 streams to combine the outer gradients
  auto r = simulate(config(8, s));                     // ring(8, 40e6) = 5.6 ms, far inside 4 steps
  EXPECT_NEAR(r.exposed_comm_s, 0.0, 1e-12);
  EXPECT_NEAR(r.iter_time_s, kStep + (kOuterGradient + kEagerStep) / 4, 1e-6 * kStep);
  // At 0.25e9 B/s the allreduce takes 280 ms: from its start to the wait a round later the rank
  // computes 4 steps, the outer step and the next outer gradient; the rest is exposed.
  const double allreduce = ring(8, kWeights, 0.25e9);
  auto slow = simulate(config(8, s, 0.25e9));
  const double exposed = allreduce - (4 * kStep + kEagerStep + kOuterGradient);
  EXPECT_NEAR(slow.exposed_comm_s * 4, exposed, 1e-3 * allreduce);
}

TEST(StreamingDiloco, OneFragmentWithoutOverlapIsDiloco) {
  auto a = simulate(config(8, streaming(4, 1, 0)));
  auto b = simulate(config(8, diloco(4)));
  EXPECT_DOUBLE_EQ(a.iter_time_s, b.iter_time_s);
  EXPECT_DOUBLE_EQ(a.exposed_comm_s, b.exposed_comm_s);
}

TEST(Compression, DividesTheBytesAndAddsAQuantizeAndADequantizePass) {
  for (int bits : {16, 8, 4}) {
    auto s = diloco(4);
    s.payload_bits = bits;
    auto r = simulate(config(8, s));
    const double allreduce = ring(8, 10e6 * bits / 8);
    EXPECT_NEAR(r.exposed_comm_s, allreduce / 4, 1e-3 * allreduce / 4) << bits << " bits";
    const double expected = kStep + (allreduce + kOuterGradient + kOuterStep + 2 * codec(10e6, bits)) / 4;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected) << bits << " bits";
  }
}

TEST(Compression, AppliesToLocalSgdsWeightAverage) {
  auto s = periodic(schedules::ScheduleKind::local_sgd, 4, 0);
  s.payload_bits = 8;
  auto r = simulate(config(8, s));
  const double allreduce = ring(8, 10e6);
  const double expected = kStep + (allreduce + 2 * codec(10e6, 8)) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
}

// Top-k at density 0.01 of the 10 M elements: k = 100,000 (index, value) pairs per worker. Sent as
// an all-gather of every worker's pairs: on flat-100gbe's ring (P-1)/P x total / B + (P-1) x 2 us.
// The passes, at 1e12 B/s:
//   select  residual += Delta (3 x 40e6 B) + selection (40e6 B) + the pairs + clearing k entries of
//           the residual, a 32-byte sector each (100,000 x 32 B) = 160e6 + pairs + 3.2e6 B;
//   sum     zero a 40e6 B accumulator, then per worker its pairs and a scattered read and write
//           of k sectors (2 x 3.2e6 B) = 40e6 + P x (pairs + 6.4e6) B.
constexpr double kTopK = 100'000;

double all_gather(int p, double total_bytes) {
  return (p - 1.0) / p * total_bytes / 12.5e9 + (p - 1) * 2e-6;
}

schedules::ScheduleSpec sparse(schedules::ScheduleSpec s, int value_bits, int index_bits) {
  s.payload_bits = value_bits;
  s.top_k = {0.01, index_bits};
  return s;
}

TEST(TopK, AllGathersEveryWorkersPairsAndPaysTheSelectionAndTheSum) {
  for (auto [value_bits, index_bits] : {std::pair{32, 32}, std::pair{8, 16}}) {
    const double pairs = kTopK * (value_bits + index_bits) / 8;  // 800 kB or 300 kB per worker
    auto r = simulate(config(8, sparse(diloco(4), value_bits, index_bits)));
    const double gather = all_gather(8, 8 * pairs);
    EXPECT_NEAR(r.exposed_comm_s, gather / 4, 1e-3 * gather / 4) << value_bits << "/" << index_bits;
    const double select = (160e6 + pairs + 3.2e6) / 1e12, sum = (40e6 + 8 * (pairs + 6.4e6)) / 1e12;
    const double expected = kStep + (gather + kOuterGradient + select + sum + kOuterStep) / 4;
    EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected) << value_bits << "/" << index_bits;
  }
}

TEST(TopK, SparsifiesLocalSgdsWeightChangeToo) {
  // local_sgd sends the weights' change since the last average: forming it costs 3 more
  // weight-sized streams (120e6 B) and applying the summed change 5 (200e6 B: the new average,
  // then its copy to the weights).
  auto r = simulate(config(8, sparse(periodic(schedules::ScheduleKind::local_sgd, 4, 0), 32, 32)));
  const double pairs = kTopK * 8, gather = all_gather(8, 8 * pairs);
  const double passes = 160e6 + pairs + 3.2e6 + 120e6 + 40e6 + 8 * (pairs + 6.4e6) + 200e6;
  const double expected = kStep + (gather + passes / 1e12) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
}

TEST(TopK, CostsMoreThanTheDenseAllreduceOnceEnoughWorkersSendPairs) {
  // Each rank receives (P-1) workers' pairs, against 2 (P-1)/P x 40e6 B for the dense ring: at
  // density 0.05 (4e6 B of 8-byte pairs) they cross at P = 2 x 40e6 / 4e6 = 20.
  auto at_density = [](schedules::ScheduleSpec s) {
    s.top_k.density = 0.05;
    return s;
  };
  for (int p : {8, 32}) {
    auto dense = simulate(config(p, diloco(4)));
    auto topk = simulate(config(p, at_density(sparse(diloco(4), 32, 32))));
    const double gather = all_gather(p, p * 4e6), ring_time = ring(p, kWeights);
    EXPECT_NEAR(topk.exposed_comm_s, gather / 4, 1e-3 * gather / 4) << p;
    EXPECT_NEAR(dense.exposed_comm_s, ring_time / 4, 1e-3 * ring_time / 4) << p;
    EXPECT_EQ(topk.exposed_comm_s < dense.exposed_comm_s, p < 20) << p;
  }
}

TEST(TopK, WithIslandsEachGpuSelectsOnItsShardAndTheAllGatherCarriesEachIslandsPairsOnce) {
  // Islands of 2 GPUs (4 workers): each GPU selects on its 5 M-element shard, 50,000 pairs of 8 B
  // (400 kB); the all-gather over the 8 GPUs carries 8 x 400 kB = each island's 800 kB once.
  //   select  3 x 20e6 + 20e6 B of streams on the shard + 400e3 B of pairs + 50,000 x 32 B cleared
  //   sum     40e6 B zeroed + 4 workers x (800e3 B of pairs + 2 x 3.2e6 B scattered)
  auto s = sparse(diloco(4), 32, 32);
  s.island_gpus = 2;
  auto r = simulate(config(8, s));
  const double gather = all_gather(8, 8 * 400e3);
  const double select = (80e6 + 400e3 + 1.6e6) / 1e12, sum = (40e6 + 4 * (800e3 + 6.4e6)) / 1e12;
  const double expected =
      kStep + ring(2, kWeights) + (gather + kOuterGradient + select + sum + kOuterStep) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
  EXPECT_NEAR(r.exposed_comm_s, ring(2, kWeights) + gather / 4, 1e-3 * expected);
}

TEST(TopK, CountsTheEntriesAsTheDensityIsWritten) {
  EXPECT_DOUBLE_EQ(schedules::top_k_entries(0.07, 100), 7);  // 0.07 x 100 = 7.000000000000001 in binary
  EXPECT_DOUBLE_EQ(schedules::top_k_entries(0.01, 25'557'032), 255'571);  // ceil(255,570.32)
  EXPECT_DOUBLE_EQ(schedules::top_k_entries(1e-9, 30), 1);                // at least one
}

TEST(TopK, AScatteredAccessMovesASectorPerEntryAndNeverMoreThanTheVector) {
  EXPECT_DOUBLE_EQ(workers::scattered_bytes(10, 1000, 4), 320);
  EXPECT_DOUBLE_EQ(workers::scattered_bytes(500, 1000, 4), 4000);  // dense enough: the whole vector
  EXPECT_DOUBLE_EQ(workers::scattered_bytes(10, 1000, 64), 640);   // an element wider than a sector
}

}  // namespace

namespace {

using namespace dasim;
using namespace dasim::two_layer;

// Hierarchical data parallelism on flat-100gbe (one GPU per node): islands of 2 GPUs run sgd's
// step inside (one 40e6-byte bucket, after backward: ring(2, 40e6) exposed every step), and the
// periodic schedule averages over all 8 GPUs.
TEST(Islands, SgdInsideTheIslandEveryStepAndTheScheduleBetweenIslands) {
  auto local = periodic(schedules::ScheduleKind::local_sgd, 4, 0);
  local.island_gpus = 2;
  auto r = simulate(config(8, local));
  const double expected = kStep + ring(2, kWeights) + ring(8, kWeights) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-4 * expected);
  EXPECT_NEAR(r.exposed_comm_s, ring(2, kWeights) + ring(8, kWeights) / 4, 1e-3 * expected);

  auto outer = periodic(schedules::ScheduleKind::diloco, 4, 0);
  outer.island_gpus = 4;  // 2 islands of 4
  auto d = simulate(config(8, outer));
  const double diloco = kStep + ring(4, kWeights) + (ring(8, kWeights) + 0.12e-3 + 0.28e-3) / 4;
  EXPECT_NEAR(d.iter_time_s, diloco, 1e-4 * diloco);
}

TEST(Islands, AnIslandOfEveryGpuIsSgdPlusTheAveraging) {
  // One island of all 8 GPUs: its step is sgd's (one bucket), plus local SGD's averaging.
  auto local = periodic(schedules::ScheduleKind::local_sgd, 4, 0);
  local.island_gpus = 8;
  auto r = simulate(config(8, local));
  auto s = simulate(config(8, sgd(false, 1e12)));
  EXPECT_NEAR(r.iter_time_s, s.iter_time_s + ring(8, kWeights) / 4, 1e-4 * r.iter_time_s);
}

}  // namespace

namespace {

using namespace dasim;
using namespace dasim::two_layer;

// DiLoCo between 2 sites of flat-100gbe nodes joined by a 1 GB/s, 10 ms WAN: the outer allreduce
// is the alpha-beta ring over the WAN, bytes at the WAN's rate and each of its 2 steps the route's
// latency (the site's 2 us plus the WAN's 10 ms).
TEST(Sites, DilocoAcrossAWanPaysItsAlphaBetaTimeOncePerHSteps) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("dasim-sites-diloco-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto file = (dir / "two-sites.json").string();
  std::ofstream(file) << fmt::format(
      R"({{"nodes": 2, "sites": {{"platform": "{}/platforms/flat-100gbe-64.json", "count": 2,
          "wan": {{"bandwidth": "1GBps", "latency": "10ms"}}}}}})",
      DASIM_SOURCE_DIR);
  auto c = config(2, periodic(schedules::ScheduleKind::diloco, 4, 0));
  c.platform = platform::load_platform(file);
  auto r = simulate(c);
  std::filesystem::remove_all(dir);
  const double allreduce = kWeights / 1e9 + 2 * (10e-3 + 2e-6);
  EXPECT_NEAR(r.exposed_comm_s, allreduce / 4, 1e-3 * allreduce / 4);
  const double expected = kStep + (allreduce + 0.12e-3 + 0.28e-3) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected);
}

}  // namespace
