// Platforms of several sites (datacenters) joined by a WAN: the route between two sites crosses
// both sites' uplinks (the one-way WAN latency in all), flows between sites get the WAN bandwidth
// shared per site uplink, traffic inside a site never touches the WAN, and bad site files are
// refused with their JSON path.
#include "common/errors.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"
#include "transfer_probe.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using dasim::platform::load_platform;

// A directory of its own for the files of one test, removed at the end.
class SiteFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("dasim-sites-{}-{}", ::getpid(), counter_++);
    fs::create_directories(dir_);
    // One single-GPU node per leaf of a switch, links without latency: only the WAN's counts.
    write("site.json", R"({"nodes": 1,
      "node": {"gpus": 1, "gpu": {"model": "test", "speed": "1Tf"},
               "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "100GBps", "latency": 0}}]},
      "fabric": {"topology": "star", "link": {"bandwidth": "100GBps", "latency": 0}}})");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string sites(int count, int nodes, const std::string& site = "site.json") {
    return write("sites.json", fmt::format(R"({{"nodes": {}, "sites": {{"platform": "{}", "count": {},
      "wan": {{"bandwidth": "1GBps", "latency": "20ms"}}}}}})",
                                           nodes, site, count));
  }
  fs::path dir_;
  static inline int counter_ = 0;
};

double route_latency(const dasim::platform::PlatformSpec& spec, int from, int to) {
  return std::stod(dasim::runtime::run_isolated([&] {
    dasim::runtime::Simulation sim(spec);
    std::vector<simgrid::s4u::Link*> links;
    double latency = 0;
    sim.platform().gpus[size_t(from)]->route_to(sim.platform().gpus[size_t(to)], links, &latency);
    return fmt::format("{:.12g}", latency);
  }));
}

TEST_F(SiteFiles, TheRouteBetweenSitesHasTheWanLatencyAndInsideASiteNone) {
  const auto spec = load_platform(sites(2, 4));  // 2 sites of 2 nodes
  EXPECT_EQ(spec.sites.count, 2);
  EXPECT_EQ(spec.site_nodes(1), 2);
  EXPECT_EQ(spec.first_node_of_site(1), 2);
  EXPECT_NEAR(route_latency(spec, 0, 2), 20e-3, 1e-12);  // node 0 (site 0) to node 2 (site 1)
  EXPECT_NEAR(route_latency(spec, 0, 1), 0.0, 1e-12);    // nodes 0 and 1 share site 0
}

TEST_F(SiteFiles, FlowsBetweenSitesGetTheWanBandwidthEachWay) {
  // 1e9 bytes each way at 1 GB/s per direction: 1 s + 20 ms each, both at once (full duplex).
  const auto spec = load_platform(sites(2, 2));
  const auto times = dasim::testing::simulate_transfers(spec, {{0, 1}, {1, 0}}, 1e9);
  for (double t : times) EXPECT_NEAR(t, 1.0 + 20e-3, 1e-3);
  // Inside a site the flow runs at the fabric's 100 GB/s: 10 ms.
  const auto inside = dasim::testing::simulate_transfers(load_platform(sites(2, 4)), {{0, 1}}, 1e9);
  EXPECT_NEAR(inside[0], 0.01, 1e-4);
}

TEST_F(SiteFiles, ASitesUplinkIsSharedByItsFlowsToEveryOtherSite) {
  // Site 0 sends 1e9 bytes to each of sites 1, 2, 3: its uplink carries 3e9 bytes at 1 GB/s.
  const auto spec = load_platform(sites(4, 4));
  const auto times = dasim::testing::simulate_transfers(spec, {{0, 1}, {0, 2}, {0, 3}}, 1e9);
  for (double t : times) EXPECT_NEAR(t, 3.0 + 20e-3, 3e-3);
}

TEST_F(SiteFiles, BadSiteFilesAreRefusedWithTheirPath) {
  auto message = [&](const std::string& file) {
    try {
      load_platform(file);
    } catch (const dasim::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(sites(2, 3)).find("sites.count: 3 nodes do not split evenly into 2 sites"),
            std::string::npos);
  EXPECT_NE(message(sites(1, 2)).find("sites.count: expected an integer in 2..1024, got 1"),
            std::string::npos);
  EXPECT_NE(message(sites(2, 2, "missing.json")).find("sites.platform: file"), std::string::npos);
  write("torus.json", R"({"nodes": 4,
      "node": {"gpus": 1, "gpu": {"model": "test", "speed": "1Tf"},
               "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "100GBps", "latency": 0}}]},
      "fabric": {"topology": "torus", "dimensions": [4], "link": {"bandwidth": "100GBps", "latency": 0}}})");
  EXPECT_NE(message(sites(2, 8, "torus.json")).find("sites: a torus fabric cannot be split into sites"),
            std::string::npos);
  const std::string nested = sites(2, 2);
  fs::rename(nested, dir_ / "inner.json");
  EXPECT_NE(message(sites(2, 4, "inner.json")).find("is itself a platform of sites"), std::string::npos);
}

// Sites of different sizes and node types: each site holds the nodes in proportion to its
// platform file's node count (2:1 here), and the routes follow that split.
TEST_F(SiteFiles, MixedSitesSplitTheNodesInProportionToTheirFiles) {
  write("big.json", R"({"nodes": 2,
      "node": {"gpus": 1, "gpu": {"model": "big", "speed": "2Tf"},
               "nics": [{"name": "nic", "gpus": [0], "link": {"bandwidth": "100GBps", "latency": 0}}]},
      "fabric": {"topology": "star", "link": {"bandwidth": "100GBps", "latency": 0}}})");
  const auto mixed = [&](int nodes) {
    return write("mixed.json",
                 fmt::format(R"({{"nodes": {}, "sites": {{"platforms": ["big.json", "site.json"],
      "wan": {{"bandwidth": "1GBps", "latency": "20ms"}}}}}})",
                             nodes));
  };
  const auto spec = load_platform(mixed(3));
  ASSERT_EQ(spec.sites.count, 2);
  EXPECT_EQ(spec.site_nodes(0), 2);
  EXPECT_EQ(spec.site_nodes(1), 1);
  EXPECT_EQ(spec.site_of_node(1), 0);
  EXPECT_EQ(spec.site_of_node(2), 1);
  EXPECT_EQ(spec.site_platform(0).gpu.model, "big");
  EXPECT_EQ(spec.site_platform(1).gpu.model, "test");
  EXPECT_NEAR(route_latency(spec, 0, 1), 0.0, 1e-12);    // both in the big site
  EXPECT_NEAR(route_latency(spec, 1, 2), 20e-3, 1e-12);  // across the WAN
  EXPECT_EQ(load_platform(mixed(6)).site_nodes(0), 4);
  try {
    load_platform(mixed(4));
    FAIL() << "4 nodes split 2:1";
  } catch (const dasim::InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "sites.platforms: 4 nodes do not split into the sites in the proportion of their platforms' "
            "nodes, 2:1"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
