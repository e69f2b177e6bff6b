// NVLink SHARP on one DGX H100: each GPU pushes S (1 + 1/8) into the switch and receives as much
// back, at 450e9 x 0.824 (NVLink4) x 0.85 (NCCL's NVLS efficiency) per port, after NCCL's 25 us
// NVLS latency; so busbw = 2 x 7/8 x S / t approaches 2(n-1)/(n+1) x 315.2 GB/s = 490 GB/s (the
// NCCL maintainers give ~480 GB/s for 8 H100, nccl-tests#212).
#include "collectives/collective_benchmark.hpp"
#include "platform/platform_loader.hpp"

#include <gtest/gtest.h>

using namespace dasim::collectives;

TEST(Nvls, MovesSPlusASliceEachWayThroughThePort) {
  auto spec =
      dasim::platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/dgx-h100-ndr.json", 1);
  CollectiveOptions options;
  options.algorithm = Algorithm::nvls;
  options.protocol = Protocol::simple;
  const double S = 1 << 30, port = 450e9 * 0.824 * 0.85;
  const auto s = run_collective_sweep(spec, options, Op::allreduce, {S})[0];
  const double expected = 25e-6 + S * (1 + 1.0 / 8) / port;
  EXPECT_NEAR(s.time_s, expected, 1e-3 * expected);
  EXPECT_NEAR(s.busbw_Bps, 2.0 * 7 / 8 * S / expected, 1e-3 * s.busbw_Bps);
  EXPECT_EQ(s.choice, "nvls/simple");
  // The ring on the same ports: 450e9 x 0.824 at most.
  options.algorithm = Algorithm::ring;
  EXPECT_LT(run_collective_sweep(spec, options, Op::allreduce, {S})[0].busbw_Bps, 450e9 * 0.824);
}

// GB200 NVL72: 72 GPUs on NVLink5 ports (900 GB/s x 40.1/50, NCCL's SM100 NVLink rate) with
// Blackwell's NVLS efficiency 0.74: busbw approaches 2 x 71/73 x 534.1 GB/s = 1039 GB/s.
TEST(Nvls, Nvl72MovesSPlusASliceAtBlackwellsRate) {
  auto spec =
      dasim::platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/gb200-nvl72.json", 1);
  CollectiveOptions options;
  options.algorithm = Algorithm::nvls;
  options.protocol = Protocol::simple;
  const double S = 4.0 * (1 << 30), port = 900e9 * 40.1 / 50 * 0.74;
  const auto s = run_collective_sweep(spec, options, Op::allreduce, {S})[0];
  const double expected = 25e-6 + S * (1 + 1.0 / 72) / port;
  EXPECT_NEAR(s.time_s, expected, 1e-3 * expected);
  EXPECT_EQ(s.choice, "nvls/simple");
}
