// NCCL's socket transport on a TCP link: the link reaches min(line x 0.94, sockets x socket_bandwidth)
// (docs/file-formats.md, `tcp`). Checked on the validation platform that states a per-socket rate
// (validation/platforms/uber-4xpascal-25gbe-tcp.json: 25 GbE, one socket of 16.5 Gb/s), by timing
// transfers across its NIC against hand-computed routes.
#include "platform/platform_loader.hpp"
#include "support/scratch_dir.hpp"
#include "transfer_probe.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace {

using dasim::platform::load_platform;
using dasim::testing::simulate_transfers;

const std::string kUberTcp =
    std::string(DASIM_SOURCE_DIR) + "/validation/platforms/uber-4xpascal-25gbe-tcp.json";

// GPU0 of node 0 -> GPU0 of node 1 (rank 4): PCIe gpu link 0.5 us + NIC 5 us + two fabric hops of
// 0 us + NIC 5 us + PCIe 0.5 us = 11 us.
constexpr double kRouteLatency = 11e-6;
constexpr double kLine = 25e9 / 8 * 0.94;  // 2.9375e9 B/s: TCP's payload share of a 1500-byte frame
constexpr double kOneSocket = 16.5e9 / 8;  // 2.0625e9 B/s

TEST(TcpSocketCap, OneSocketBelowTheLineBindsTheRoute) {
  auto spec = load_platform(kUberTcp, 2);
  const double bytes = 1e9;
  double expected = kRouteLatency + bytes / kOneSocket;
  EXPECT_NEAR(simulate_transfers(spec, {{0, 4}}, bytes)[0], expected, expected * 1e-3);
}

// The cap is the link's, not each flow's: four GPUs sending through the one NIC share one socket's rate.
TEST(TcpSocketCap, FlowsThroughTheNicShareTheCap) {
  auto spec = load_platform(kUberTcp, 2);
  const double bytes = 1e8;
  double expected = kRouteLatency + bytes / (kOneSocket / 4);
  for (double t : simulate_transfers(spec, {{0, 4}, {1, 5}, {2, 6}, {3, 7}}, bytes))
    EXPECT_NEAR(t, expected, expected * 1e-3);
}

// Two sockets could carry 33 Gb/s, more than the line's 23.5: the line binds again.
TEST(TcpSocketCap, EnoughSocketsLeaveTheLineRate) {
  nlohmann::json platform;
  std::ifstream(kUberTcp) >> platform;
  platform["node"]["nics"][0]["link"]["tcp"]["sockets"] = 2;
  platform["node"]["gpu"]["calibration"] =
      std::string(DASIM_SOURCE_DIR) + "/platforms/calibration/p100-pcie-deepbench.json";
  auto path = dasim::testing::scratch_dir("dasim_tcp_socket_cap_test") / "two-sockets.json";
  std::ofstream(path) << platform.dump();
  auto spec = load_platform(path.string(), 2);
  const double bytes = 1e9;
  double expected = kRouteLatency + bytes / kLine;
  EXPECT_NEAR(simulate_transfers(spec, {{0, 4}}, bytes)[0], expected, expected * 1e-3);
}

}  // namespace
