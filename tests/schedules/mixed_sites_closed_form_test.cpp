// Sites of different GPU types (platform "sites": {"platforms": [...]}) against closed forms: two
// sites of one flat-100gbe node each, joined by a 1 GB/s, 10 ms WAN, the first site's GPU twice
// as fast as the second's. The two-layer workload of two_layer_fixture.hpp with its layers given
// as FLOPs instead of measured times, so each GPU's calibration sets its compute: per sample
// 1.25e9 forward and 2.5e9 backward FLOPs per layer, at batch 32 on the 1e13 FLOP/s GPU 4 and
// 8 ms per layer (24 ms per step, 24.2 with the 0.2 ms update), on the 2e13 FLOP/s GPU half that
// (12 ms, 12.2 with the update, which streams memory at the same 1e12 B/s).
#include "support/scratch_dir.hpp"
#include "two_layer_fixture.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

workload::Workload flop_layers() {
  auto w = two_layers();
  for (auto& layer : w.layers) {
    layer.forward_time_s.reset();
    layer.backward_time_s.reset();
    layer.measured_batch = 0;
    layer.forward_flops = 1.25e9;
    layer.backward_flops = 2.5e9;
  }
  return w;
}

calibration::Calibration gpu_at(double flops) {
  auto c = test_calibration();
  c.fitted.flops["fp32"] = flops;
  return c;
}

engine::TrainingConfig mixed_sites_config(schedules::ScheduleSpec schedule) {
  const auto file = (dasim::testing::scratch_dir("dasim-mixed-sites") / "fast-and-slow.json").string();
  std::ofstream(file) << fmt::format(
      R"({{"nodes": 2, "sites": {{"platforms": ["{0}/platforms/flat-100gbe-64.json", "{0}/platforms/flat-100gbe-64.json"],
          "wan": {{"bandwidth": "1GBps", "latency": "10ms"}}}}}})",
      DASIM_SOURCE_DIR);
  auto c = config(2, schedule);
  c.platform = platform::load_platform(file);
  c.workload = flop_layers();
  c.calibration = gpu_at(2e13);
  c.site_calibrations = {gpu_at(2e13), gpu_at(1e13)};
  return c;
}

constexpr double kFastStep = 12.2e-3;
// The ring over the WAN, 2 ranks: the bytes at the WAN's rate, each of its 2 steps the route's
// latency (the site's 2 us and the WAN's 10 ms).
const double kWanAllreduce = kWeights / 1e9 + 2 * (10e-3 + 2e-6);

TEST(MixedSites, DilocoWaitsForTheSlowSiteAtEachOuterStep) {
  // H = 4: the fast GPU's 4 steps take 48.8 ms, the slow one's 96.8 ms; the blocking outer
  // allreduce starts when the slow one is done, so a round is the slow site's.
  auto r = simulate(mixed_sites_config(periodic(schedules::ScheduleKind::diloco, 4, 0)));
  const double passes = 0.12e-3 + 0.28e-3;  // outer gradient and Nesterov step, the same on both
  const double expected = kStep + (kWanAllreduce + passes) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected);
  // Per step and rank: compute is each GPU's own, averaged; the fast GPU's wait for the slow one
  // is exposed communication (it waits inside the allreduce).
  EXPECT_NEAR(r.compute_s, (kStep + kFastStep) / 2 + passes / 4, 1e-6);
  EXPECT_NEAR(r.exposed_comm_s, kWanAllreduce / 4 + 4 * (kStep - kFastStep) / 2 / 4, 1e-3 * expected);
  EXPECT_NEAR(r.step_compute_s, kStep, 1e-9);  // the slowest GPU type's
}

TEST(MixedSites, EachSiteComputesWithItsOwnCalibration) {
  // The fast site alone is twice as fast: with both sites at 2e13 FLOP/s the round is 4 fast steps.
  auto c = mixed_sites_config(periodic(schedules::ScheduleKind::diloco, 4, 0));
  c.site_calibrations = {gpu_at(2e13), gpu_at(2e13)};
  auto r = simulate(c);
  const double expected = kFastStep + (kWanAllreduce + 0.4e-3) / 4;
  EXPECT_NEAR(r.iter_time_s, expected, 1e-3 * expected);
}

TEST(MixedSites, SitesOfDifferentSizesComputeWithTheirOwnGpus) {
  // A 2-node site of the fast GPU and a 1-node site of the slow one (the sites' files hold 2 and 1
  // nodes): per step the three GPUs' compute averages (2 x 12.2 + 24.2) / 3 ms, and each round is
  // still the slow GPU's.
  const auto dir = dasim::testing::scratch_dir("dasim-mixed-sizes");
  for (int nodes : {1, 2})
    std::ofstream(dir / fmt::format("site{}.json", nodes)) << fmt::format(
        R"({{"nodes": {}, "node": {{"gpus": 1, "gpu": {{"model": "test", "speed": "1Tf"}},
            "nics": [{{"name": "nic", "gpus": [0], "link": {{"bandwidth": "12.5GBps", "latency": "1us"}}}}]}},
            "fabric": {{"topology": "star", "link": {{"bandwidth": "12.5GBps", "latency": "1us"}}}}}})",
        nodes);
  std::ofstream(dir / "sizes.json")
      << R"({"nodes": 3, "sites": {"platforms": ["site2.json", "site1.json"], "wan": {"bandwidth": "1GBps", "latency": "10ms"}}})";
  auto c = mixed_sites_config(periodic(schedules::ScheduleKind::diloco, 4, 0));
  c.platform = platform::load_platform((dir / "sizes.json").string());
  auto r = simulate(c);
  const double passes = 0.12e-3 + 0.28e-3;
  EXPECT_NEAR(r.compute_s, (2 * kFastStep + kStep) / 3 + passes / 4, 1e-6);
  EXPECT_GT(r.iter_time_s, kStep + passes / 4);
}

}  // namespace
