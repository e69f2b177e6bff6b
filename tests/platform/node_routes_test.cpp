// Intra-node routes as pure functions of the spec (no SimGrid), checked on the DGX-1 preset.
#include "platform/node_routes.hpp"
#include "platform/platform_loader.hpp"
#include "platform/platform_variants.hpp"

#include <gtest/gtest.h>

namespace {

using namespace dasim::platform;

PlatformSpec dgx1() {
  return load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/dgx1-v100-edr.json", 1);
}

TEST(NodeRoutes, Dgx1HybridCubeMeshHasSixNvlinksPerGpu) {
  auto spec = dgx1();
  for (int g = 0; g < 8; ++g) {
    int links = 0;
    for (const auto& p : spec.nvlink->pairs)
      if (p.a == g || p.b == g) links += p.links;
    EXPECT_EQ(links, 6) << "GPU " << g;
  }
}

TEST(NodeRoutes, LabelsLikeNvidiaSmiTopo) {
  auto spec = dgx1();
  EXPECT_EQ(connection_label(spec, 0, 3), "NV2");
  EXPECT_EQ(connection_label(spec, 0, 1), "NV1");
  EXPECT_EQ(connection_label(spec, 0, 5), "SYS");
  EXPECT_EQ(connection_label(spec, 1, 2), "NV2");
}

TEST(NodeRoutes, GpuToNicCrossesOnlyItsPcieSwitch) {
  auto spec = dgx1();
  auto route = gpu_to_nic_route(spec, 3);  // GPU3 sits under plx1 with mlx5_1
  ASSERT_EQ(route.size(), 2u);
  EXPECT_EQ(route[0].name, "pcie-gpu3");
  EXPECT_EQ(route[1].name, "nic-mlx5_1");
  auto figures = route_figures(spec, route);
  // Achieved rates: PCIe Gen3 x16 15.75e9 x 0.76 = 11.97e9 just below EDR's 12.5e9 x 0.96 = 12e9.
  EXPECT_DOUBLE_EQ(figures.bandwidth_Bps, 15.75e9 * 0.76);
  EXPECT_NEAR(figures.latency_s, 0.5e-6 + 0.6e-6, 1e-15);  // PCIe hop + EDR preset
}

}  // namespace

namespace {

using namespace dasim::platform;

// The peers of sharded islands (GPU r of every island) see one GPU per node with GPU r's own NIC
// and PCIe path: on the DGX-1, GPU 5 sits under plx2 with mlx5_2 (platforms/dgx1-v100-edr.json).
TEST(GpuPeers, KeepTheGpusOwnNicAndPciePathAndNothingInsideTheNode) {
  const auto whole = load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/dgx1-v100-edr.json", 4);
  const auto peers = gpu_peers(whole, 4, 5);
  EXPECT_EQ(peers.nodes, 4);
  EXPECT_EQ(peers.gpus_per_node, 1);
  EXPECT_FALSE(peers.nvlink.has_value());
  ASSERT_EQ(peers.nics.size(), 1u);
  EXPECT_EQ(peers.nics[0].name, "mlx5_2");
  EXPECT_EQ(peers.nics[0].gpus, std::vector<int>{0});
  const auto route = gpu_to_nic_route(peers, 0);
  ASSERT_EQ(route.size(), 2u);
  EXPECT_EQ(route[1].name, "nic-mlx5_2");
  const auto original = route_figures(whole, gpu_to_nic_route(whole, 5));
  EXPECT_DOUBLE_EQ(route_figures(peers, route).bandwidth_Bps, original.bandwidth_Bps);
  EXPECT_DOUBLE_EQ(route_figures(peers, route).latency_s, original.latency_s);
}

}  // namespace
