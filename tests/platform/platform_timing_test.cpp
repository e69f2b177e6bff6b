// Transfers on the built SimGrid platforms against hand-computed alpha-beta figures.
#include "platform/platform_loader.hpp"
#include "transfer_probe.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using dasim::platform::load_platform;
using dasim::testing::simulate_transfers;

std::string preset(const std::string& name) {
  return std::string(DASIM_SOURCE_DIR) + "/platforms/" + name;
}

// Achieved rates = line rate x the transport's efficiency (platform/transports.cpp): PCIe 0.76
// (NCCL's PCI_BW 12 GB/s for Gen3 x16), NVLink 0.80 (NCCL's 20 GB/s per 25 GB/s link), IB 0.96.
constexpr double kPcieGen3 = 15.75e9 * 0.76;  // 11.97e9
constexpr double kNvlink2 = 25e9 * 0.80;      // 20e9 per link
constexpr double kEdr = 12.5e9 * 0.96;        // 12e9

// flat-100gbe-64: NIC 1 us + two 0 us switch port links + NIC 1 us; every link 12.5e9 B/s.
TEST(PlatformTiming, SingleTransferIsLatencySumPlusBytesOverBottleneck) {
  auto spec = load_platform(preset("flat-100gbe-64.json"));
  for (double bytes : {1e3, 1e6, 1e9}) {
    double expected = 2e-6 + bytes / 12.5e9;
    auto t = simulate_transfers(spec, {{0, 37}}, bytes);
    EXPECT_NEAR(t[0], expected, expected * 1e-3) << bytes << " bytes";
  }
}

// v100-pcie-25gbe, GPU0 (plx0, socket 0) -> GPU5 (plx1, socket 1): gpu link 0.5 + uplink 0.5 +
// UPI 1 + uplink 0.5 + gpu link 0.5 = 3 us; bottleneck PCIe Gen3 x16 at 11.97e9 B/s achieved (UPI
// 20.8e9, ideal).
TEST(PlatformTiming, PcieCrossSocketRoute) {
  auto spec = load_platform(preset("v100-pcie-25gbe.json"), 1);
  const double bytes = 64e6;
  double expected = 3e-6 + bytes / kPcieGen3;
  auto t = simulate_transfers(spec, {{0, 5}}, bytes);
  EXPECT_NEAR(t[0], expected, expected * 1e-3);
}

// GPU0->GPU4 and GPU1->GPU5 both leave plx0 through its one uplink: each gets half of 11.97e9.
TEST(PlatformTiming, TwoTransfersThroughOnePcieUplinkEachGetHalf) {
  auto spec = load_platform(preset("v100-pcie-25gbe.json"), 1);
  const double bytes = 64e6;
  double alone = simulate_transfers(spec, {{0, 4}}, bytes)[0];
  auto shared = simulate_transfers(spec, {{0, 4}, {1, 5}}, bytes);
  double expected = 3e-6 + bytes / (kPcieGen3 / 2);
  EXPECT_NEAR(shared[0], expected, expected * 1e-3);
  EXPECT_NEAR(shared[1], expected, expected * 1e-3);
  EXPECT_NEAR(shared[0] / alone, 2.0, 0.01);
}

// DGX-1V: GPU0-GPU3 have 2 NVLinks (40e9 B/s achieved, 1 us), GPU0-GPU1 one (20e9), GPU0-GPU5 none:
// PCIe via plx0, root, QPI, root, plx2 (11.97e9, 0.5+0.5+1+0.5+0.5 = 3 us).
TEST(PlatformTiming, Dgx1NvlinkPairsBeatPcieFallback) {
  auto spec = load_platform(preset("dgx1-v100-edr.json"), 1);
  const double bytes = 256e6;
  double nv2 = simulate_transfers(spec, {{0, 3}}, bytes)[0];
  double nv1 = simulate_transfers(spec, {{0, 1}}, bytes)[0];
  double pcie = simulate_transfers(spec, {{0, 5}}, bytes)[0];
  EXPECT_NEAR(nv2, 1e-6 + bytes / (2 * kNvlink2), 1e-3 * nv2);
  EXPECT_NEAR(nv1, 1e-6 + bytes / kNvlink2, 1e-3 * nv1);
  EXPECT_NEAR(pcie, 3e-6 + bytes / kPcieGen3, 1e-3 * pcie);
  EXPECT_LT(nv2, nv1);
  EXPECT_LT(nv1, pcie);
}

// DGX-1V inter-node: GPU0 of node 0 -> GPU0 of node 1: PCIe gpu link (0.5 us) + EDR NIC (0.6 us)
// + two fabric hops (0.1 us each) + NIC + PCIe = 2.4 us; bottleneck the PCIe link at 11.97e9 B/s,
// just below the EDR NIC's 12e9 (NCCL models both at 12 GB/s).
TEST(PlatformTiming, Dgx1InterNodeRouteUsesTheGpusNic) {
  auto spec = load_platform(preset("dgx1-v100-edr.json"), 2);
  const double bytes = 100e6;
  double expected = 2.4e-6 + bytes / kPcieGen3;
  EXPECT_NEAR(simulate_transfers(spec, {{0, 8}}, bytes)[0], expected, expected * 1e-3);
  // Four GPU pairs on four rails run in parallel at full NIC speed ...
  auto rails = simulate_transfers(spec, {{0, 8}, {2, 10}, {4, 12}, {6, 14}}, bytes);
  for (double t : rails) EXPECT_NEAR(t, expected, expected * 1e-3);
  // ... while two GPUs sharing one NIC (GPU0 and GPU1 use mlx5_0) get half of it each.
  auto shared = simulate_transfers(spec, {{0, 8}, {1, 9}}, bytes);
  double half = 2.4e-6 + bytes / (kEdr / 2);
  for (double t : shared) EXPECT_NEAR(t, half, half * 1e-3);
}

}  // namespace
