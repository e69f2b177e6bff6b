// Fabric-level behaviour: fat-tree oversubscription under cross-pod load, presets at any size.
#include "platform/bisection.hpp"
#include "platform/network_model.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"
#include "support/scratch_dir.hpp"
#include "transfer_probe.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

namespace {

using dasim::platform::load_platform;

std::string write_temp(const std::string& name, const std::string& text) {
  auto path = dasim::testing::scratch_dir("dasim-fabric-test") / name;
  std::ofstream(path) << text;
  return path.string();
}

// 2 pods x `radix` single-GPU nodes on 10 GB/s links with no latency.
std::string fat_tree_file(int radix, double oversubscription) {
  return write_temp(fmt::format("ft{}-{}.json", radix, oversubscription),
                    fmt::format(R"({{
    "nodes": {},
    "node": {{"gpus": 1, "gpu": {{"model": "test", "speed": "1Tf"}},
              "nics": [{{"name": "nic", "gpus": [0], "link": {{"bandwidth": "100GBps", "latency": 0}}}}]}},
    "fabric": {{"topology": "fat_tree", "link": {{"bandwidth": "10GBps", "latency": 0}},
               "switch_radix": {}, "oversubscription": {}}}
  }})",
                                2 * radix, radix, oversubscription));
}

// Every node of pod 0 sends to its twin in pod 1 and back: 2 x radix flows cross the spine.
// Each leaf has radix / r uplinks for radix flows each way, so each flow gets B / r.
TEST(Fabric, FatTreeOversubscriptionGivesOneOverRUnderCrossPodLoad) {
  const int radix = 8;
  const double bytes = 1e9, link_Bps = 10e9;
  for (double r : {1.0, 2.0, 4.0}) {
    auto spec = load_platform(fat_tree_file(radix, r));
    std::vector<std::pair<int, int>> flows;
    for (int i = 0; i < radix; ++i) {
      flows.push_back({i, radix + i});
      flows.push_back({radix + i, i});
    }
    auto times = dasim::testing::simulate_transfers(spec, flows, bytes);
    double mean = std::accumulate(times.begin(), times.end(), 0.0) / times.size();
    double per_flow_Bps = bytes / mean;
    EXPECT_NEAR(per_flow_Bps, link_Bps / r, link_Bps / r * 0.01) << "oversubscription " << r;
    for (double t : times) EXPECT_NEAR(t, mean, mean * 0.01) << "uneven spine spreading at r=" << r;
  }
}

TEST(Fabric, BisectionBandwidthFollowsTheOversubscription) {
  auto spec = load_platform(fat_tree_file(8, 2.0));
  // 16 nodes, 8 cross the cut at 10 GB/s, halved by 2:1 oversubscription.
  EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(spec), 8 * 10e9 / 2);
}

class PresetSizes : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(PresetSizes, LoadsAndBuildsWithAllGpus) {
  auto [file, nodes] = GetParam();
  auto spec = load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/" + file, nodes);
  std::string hosts = dasim::runtime::run_isolated([&] {
    dasim::runtime::Simulation sim(spec);
    std::vector<simgrid::s4u::Link*> links;
    double latency = 0;
    // The farthest pair must be routable.
    sim.platform().gpus.front()->route_to(sim.platform().gpus.back(), links, &latency);
    if (spec.total_gpus() > 1 && links.empty()) throw std::runtime_error("no route");
    return std::to_string(sim.engine().get_host_count());
  });
  // A host per GPU, and one per node for an NVSwitch with NVLS (where NVLS reduces).
  const bool nvls = spec.nvswitch && spec.nvswitch->nvls_efficiency && spec.gpus_per_node > 1;
  EXPECT_EQ(std::stoi(hosts), nodes * spec.gpus_per_node + (nvls ? nodes : 0));
}

INSTANTIATE_TEST_SUITE_P(
    AllPresets, PresetSizes,
    ::testing::Combine(::testing::Values("flat-100gbe-64.json", "v100-pcie-25gbe.json", "dgx1-v100-edr.json",
                                         "dgx-a100-hdr.json", "dgx-h100-ndr.json",
                                         "h100-ndr-rail-optimised.json", "h100-ndr-single-plane.json",
                                         "dgx-h100-ndr-dragonfly.json"),
                       ::testing::Values(1, 2, 128)),
    [](const auto& info) {
      std::string name = std::get<0>(info.param);
      name = name.substr(0, name.find('.'));
      for (auto& c : name)
        if (c == '-') c = '_';
      return name + "_" + std::to_string(std::get<1>(info.param)) + "_nodes";
    });

}  // namespace

namespace {

// A 4 x 4 torus of single-GPU nodes, 10 GB/s links of 1 us, NICs with no latency: a transfer
// crosses one torus link per hop (wrap-around included), so its latency is hops x 1 us.
TEST(Fabric, TorusLatencyCountsHopsWithWrapAround) {
  auto file = write_temp("torus.json", R"({
    "nodes": 16,
    "node": {"gpus": 1, "gpu": {"model": "test", "speed": "1Tf"},
             "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "100GBps", "latency": 0}}]},
    "fabric": {"topology": "torus", "link": {"bandwidth": "10GBps", "latency": "1us"}, "dimensions": [4, 4]}
  })");
  auto spec = load_platform(file);
  const double bytes = 1e3;
  auto t = dasim::testing::simulate_transfers(spec, {{0, 1}}, bytes)[0];
  EXPECT_NEAR(t, 1e-6 + bytes / 10e9, 1e-9);  // neighbours: one hop
  // Node 0 -> node 3 along the first ring of 4 is one hop backwards through the wrap-around link,
  // node 0 -> node 10 ((2, 2) in some order) is two hops in each dimension.
  EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{0, 3}}, bytes)[0], 1e-6 + bytes / 10e9, 1e-9);
  EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{0, 10}}, bytes)[0], 4e-6 + bytes / 10e9, 1e-9);
  // Bisection of a 4 x 4 torus: cutting a ring of 4 in half cuts 2 links per ring, 4 rings.
  EXPECT_DOUBLE_EQ(dasim::platform::bisection_bandwidth_Bps(spec), 2 * 4 * 10e9);
}

// `dimensions: 2` (a near-square torus) at 1, 2, 8 and 64 nodes: every size builds and runs (a
// torus of 1 node, or with a dimension of 1, made SimGrid abort on a link declared twice), and node
// 0 -> the last node crosses the hops of the shortest way round each ring, 1 us each.
TEST(Fabric, TorusOfRankTwoRunsAtEverySize) {
  auto file = write_temp("torus-rank2.json", R"({
    "nodes": 4,
    "node": {"gpus": 1, "gpu": {"model": "test", "speed": "1Tf"},
             "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "100GBps", "latency": 0}}]},
    "fabric": {"topology": "torus", "link": {"bandwidth": "10GBps", "latency": "1us"}, "dimensions": 2}
  })");
  // (nodes, hops from node 0 to the last): 2 = 2x1, one hop; 8 = 4x2, the last node (3, 1) is one
  // hop back round the ring of 4 and one across the ring of 2; 64 = 8x8, (7, 7) is 1 + 1 hops.
  for (auto [nodes, hops] : {std::pair{2, 1}, std::pair{8, 2}, std::pair{64, 2}}) {
    auto spec = load_platform(file, nodes);
    const double bytes = 1e3;
    EXPECT_NEAR(dasim::testing::simulate_transfers(spec, {{0, nodes - 1}}, bytes)[0],
                hops * 1e-6 + bytes / 10e9, 1e-9)
        << nodes << " nodes";
  }
  auto one = load_platform(file, 1);
  EXPECT_NO_THROW(dasim::runtime::run_isolated([&] {
    dasim::runtime::Simulation simulation(one);
    return std::string();
  }));
  std::filesystem::remove(file);
}

}  // namespace

TEST(NetworkModel, TheDescriptionStatesTheFactorsOfTheModel) {
  EXPECT_EQ(dasim::platform::describe_network_model({"CM02", false}),
            "SimGrid CM02, latency factor 1, bandwidth factor 1, no cross-traffic, no TCP-gamma cap");
  // SimGrid 3.32's LV08 defaults (SIMGRID-NOTES.md): latency x 13.01, bandwidth x 0.97.
  EXPECT_EQ(dasim::platform::describe_network_model({"LV08", true}),
            "SimGrid LV08, latency factor 13.01, bandwidth factor 0.97, cross-traffic on, no TCP-gamma cap");
}
