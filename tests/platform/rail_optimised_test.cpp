// Rail-optimised vs single-plane fat-trees sized by the ports of a leaf switch.
//
// Nodes of 2 GPUs, each GPU with its own NIC (2 rails); fabric links (one rail) 10 GB/s and 1 us,
// so a node's link is 2 x 10 = 20 GB/s. Leaf switches of 4 down ports:
//   rail-optimised: a leaf per rail takes NIC r of 4 nodes -> 4 nodes per (aggregated) leaf;
//   single plane:   a leaf takes both NICs of 2 nodes      -> 2 nodes per leaf.
// Node 0 -> node 2 is then one leaf (2 links) on the first and leaf-spine-leaf (4 links) on the
// second.
#include "platform/bisection.hpp"
#include "platform/platform_loader.hpp"
#include "support/scratch_dir.hpp"
#include "transfer_probe.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

using dasim::platform::load_platform;

std::string fat_tree_by_ports(int nodes, bool rail_optimised, double oversubscription) {
  auto path = dasim::testing::scratch_dir("dasim-rail-test") /
              fmt::format("rail-{}-{}-{}.json", nodes, rail_optimised, oversubscription);
  std::ofstream(path) << fmt::format(R"({{
    "nodes": {},
    "node": {{"gpus": 2, "gpu": {{"model": "test", "speed": "1Tf"}},
              "nvswitch": {{"port": {{"bandwidth": "100GBps", "latency": 0}}}},
              "nics": [{{"name": "nic0", "gpus": [0], "link": {{"bandwidth": "100GBps", "latency": 0}}}},
                       {{"name": "nic1", "gpus": [1], "link": {{"bandwidth": "100GBps", "latency": 0}}}}]}},
    "fabric": {{"topology": "fat_tree", "link": {{"bandwidth": "10GBps", "latency": "1us"}},
               "leaf_ports": 4, "rail_optimised": {}, "oversubscription": {}}}
  }})",
                                     nodes, rail_optimised, oversubscription);
  return path.string();
}

TEST(RailOptimised, LeavesHoldLeafPortsNodesOrLeafPortsOverRails) {
  EXPECT_EQ(load_platform(fat_tree_by_ports(8, true, 1)).fabric.switch_radix, 4);
  EXPECT_EQ(load_platform(fat_tree_by_ports(8, false, 1)).fabric.switch_radix, 2);
}

TEST(RailOptimised, NodesOfOneRailLeafGroupAvoidTheSpine) {
  const double bytes = 1e3;  // GPU 0 of node 0 (rank 0) -> GPU 0 of node 2 (rank 4), 20 GB/s node link
  EXPECT_NEAR(
      dasim::testing::simulate_transfers(load_platform(fat_tree_by_ports(8, true, 1)), {{0, 4}}, bytes)[0],
      2e-6 + bytes / 20e9, 1e-10);
  EXPECT_NEAR(
      dasim::testing::simulate_transfers(load_platform(fat_tree_by_ports(8, false, 1)), {{0, 4}}, bytes)[0],
      4e-6 + bytes / 20e9, 1e-10);
}

// 4 nodes at 2:1: nodes 0, 1 exchange 1 GB with nodes 2, 3 (both ways, GPU 0s). Rail-optimised,
// all 4 share a leaf: each flow gets the node's 20 GB/s, 0.05 s. Single plane: each leaf's 2 node
// ports have 2 / 2 = 1 uplink of 20 GB/s for 2 flows each way: 10 GB/s, 0.1 s.
TEST(RailOptimised, OversubscriptionBitesBeyondTheLeafOnly) {
  std::vector<std::pair<int, int>> flows = {{0, 4}, {2, 6}, {4, 0}, {6, 2}};
  for (double t :
       dasim::testing::simulate_transfers(load_platform(fat_tree_by_ports(4, true, 2)), flows, 1e9))
    EXPECT_NEAR(t, 1e9 / 20e9, 1e-3 * t);
  for (double t :
       dasim::testing::simulate_transfers(load_platform(fat_tree_by_ports(4, false, 2)), flows, 1e9))
    EXPECT_NEAR(t, 1e9 / 10e9, 1e-3 * t);
  // Bisection, 2 nodes a side of 20 GB/s: one leaf is non-blocking (40 GB/s), two leaves halve it.
  EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(load_platform(fat_tree_by_ports(4, true, 2))),
                   40e9);
  EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(load_platform(fat_tree_by_ports(4, false, 2))),
                   20e9);
}

}  // namespace
