// Dragonfly closed forms: SimGrid 3.32's minimal routing, hop by hop.
//
// 2 groups x 2 chassis x 2 routers x 2 single-GPU nodes; node id = ((g * 2 + c) * 2 + r) * 2 + n.
// Fabric links 10 GB/s, 1 us each; NICs 100 GB/s with no latency, so a small transfer's time is
// (links crossed) x 1 us + bytes / 10 GB/s, the node link being the narrowest on the way.
//
//   group 0                    group 1
//   c0: r0 -green- r1 ===blue=== r0 -green- r1   (blue: router g of group i's chassis 0 <-> group g)
//       |black     |black        |          |
//   c1: r0 -green- r1            r0 -green- r1
#include "platform/bisection.hpp"
#include "platform/platform_loader.hpp"
#include "support/scratch_dir.hpp"
#include "transfer_probe.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

namespace {

using dasim::platform::load_platform;

std::string dragonfly_file(const std::string& name, int nodes, const std::string& shape) {
  auto path = dasim::testing::scratch_dir("dasim-dragonfly-test") / (name + ".json");
  std::ofstream(path) << fmt::format(R"({{
    "nodes": {},
    "node": {{"gpus": 1, "gpu": {{"model": "test", "speed": "1Tf"}},
              "nics": [{{"name": "nic", "gpus": [0], "link": {{"bandwidth": "100GBps", "latency": 0}}}}]}},
    "fabric": {{"topology": "dragonfly", "link": {{"bandwidth": "10GBps", "latency": "1us"}}, {}}}
  }})",
                                     nodes, shape);
  return path.string();
}

const std::string kShape =
    R"("groups": 2, "chassis_per_group": 2, "routers_per_chassis": 2, "nodes_per_router": 2,
                             "links_between_groups": 1, "links_between_chassis": 2, "links_between_routers": 3)";

double small_transfer_s(int links) {
  return links * 1e-6 + 1e3 / 10e9;
}

TEST(Dragonfly, RouteLatencyIsOneMicrosecondPerLinkCrossed) {
  auto spec = load_platform(dragonfly_file("df", 16, kShape));
  // (from, to, links): same router: node up, node down. Same chassis 0, routers 0 -> 1: + green.
  // Same router index, chassis 0 -> 1: + black. Routers 0 -> 1 of chassis 1: green, then black.
  // Group 0 -> 1: node 0 greens to router 1 (group 1's gateway), blue to group 1's router 0: 4.
  // Node 0 -> node 14 (g1 c1 r1): green, blue, green, black: 6. Node 4 (g0 c1 r0) -> node 14:
  // green to r1, black to chassis 0, blue, green, black: 7, the diameter.
  const std::vector<std::tuple<int, int, int>> cases = {{0, 1, 2}, {0, 2, 3},  {0, 4, 3},  {0, 6, 4},
                                                        {0, 8, 4}, {0, 14, 6}, {4, 14, 7}, {6, 12, 5}};
  for (auto [from, to, links] : cases)
    EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{from, to}}, 1e3)[0], small_transfer_s(links),
                1e-10)
        << from << " -> " << to;
}

// SimGrid 3.32 routes a same-group pair on different routers through the target router index of
// chassis 0 (DragonflyZone::get_local_route): within chassis 1 it adds a black link there and back.
TEST(Dragonfly, SameChassisPairOutsideChassisZeroCrossesOneExtraBlackLink) {
  auto spec = load_platform(dragonfly_file("df-quirk", 16, kShape));
  EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{4, 6}}, 1e3)[0], small_transfer_s(4), 1e-10);
}

// All 8 nodes of group 0 send 1 GB to their twin in group 1: every flow crosses the one blue link
// of C = k x 10 GB/s (k links between groups), the narrowest shared link (green 30, black 20 GB/s
// carry at most 4 flows). SimGrid's CM02 shares a link in inverse proportion to each flow's route
// latency (RTT fairness): sources in chassis 0 cross 4 links, those in chassis 1 cross 6, so rates
// are x/4 and x/6 with 4x/4 + 4x/6 = C: 0.15 C and 0.1 C. The fast four finish at 1 GB / 0.15 C;
// the blue link stays full until the last byte, 8 GB / C.
TEST(Dragonfly, LinksBetweenGroupsSetTheCrossGroupBottleneck) {
  for (int k : {1, 2}) {
    std::string shape = kShape;
    shape.replace(shape.find("\"links_between_groups\": 1"), 25,
                  fmt::format("\"links_between_groups\": {}", k));
    auto spec = load_platform(dragonfly_file(fmt::format("df-k{}", k), 16, shape));
    std::vector<std::pair<int, int>> flows;
    for (int i = 0; i < 8; ++i) flows.push_back({i, 8 + i});
    const double blue_Bps = k * 10e9;
    auto times = dasim::testing::simulate_transfers(spec, flows, 1e9);
    for (int i = 0; i < 8; ++i) {
      const double expected = i < 4 ? 1e9 / (0.15 * blue_Bps) : 8e9 / blue_Bps;
      EXPECT_NEAR(times[i], expected, 1e-3 * expected) << k << " links between groups, source " << i;
    }
    // One transfer alone: 1 MB at the node link's 10 GB/s after 7 links' latency.
    EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{4, 14}}, 1e6)[0], 7e-6 + 1e6 / 10e9, 1e-10);
    // Bisection: the cut between the two groups crosses k blue links of 10 GB/s.
    EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(spec), k * 10e9);
  }
}

// 12 nodes without "groups": ceil(12 / 8) = 2 groups, the last 4 positions empty ports; node 11 is
// g1 c0 r1 n1: green to router 1, blue, green, node down = 5 links.
TEST(Dragonfly, GroupsDefaultToWhatTheNodesFill) {
  auto spec = load_platform(dragonfly_file(
      "df-12", 12,
      R"("chassis_per_group": 2, "routers_per_chassis": 2, "nodes_per_router": 2, "links_between_groups": 1)"));
  EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{0, 11}}, 1e3)[0], small_transfer_s(5), 1e-10);
}

// 4 groups of one chassis of 4 routers, one node each: halves of 2 groups, 2 x 2 = 4 blue links
// of 10 GB/s cross the cut (below the 8 nodes' 80 GB/s). One group: halves of 2 routers, 2 x 2
// green links of 3 x 10 GB/s = 120 GB/s, capped by the 8 nodes' links: 80 GB/s.
TEST(Dragonfly, BisectionCutsTheGroupsElseTheRouters) {
  auto groups = load_platform(
      dragonfly_file("df-bis4", 16, R"("groups": 4, "routers_per_chassis": 4, "nodes_per_router": 1)"));
  EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(groups), 4 * 10e9);
  auto one_group = load_platform(dragonfly_file(
      "df-bis1", 16,
      R"("groups": 1, "routers_per_chassis": 4, "nodes_per_router": 4, "links_between_routers": 3)"));
  EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(one_group), 8 * 10e9);
}

}  // namespace
