// The hierarchical allreduce on a multi-rail DGX A100, and NCCL-style rings over several NICs.
#include "collectives/collective_benchmark.hpp"
#include "collectives/ring_order.hpp"
#include "platform/node_routes.hpp"
#include "platform/platform_loader.hpp"
#include "support/scratch_dir.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

#include <gtest/gtest.h>

namespace {

using namespace dasim::collectives;
using dasim::platform::load_platform;

std::string preset(const std::string& name) {
  return std::string(DASIM_SOURCE_DIR) + "/platforms/" + name;
}

// DGX A100, 4 nodes: 8 HDR rails of 25e9 B/s per node.
TEST(HierarchicalAllreduce, BoundedByTheNicAggregateAndFasterThanASingleFlatRing) {
  auto spec = load_platform(preset("dgx-a100-hdr.json"), 4);
  const double bytes = 1 << 30;
  CollectiveOptions hier;
  hier.algorithm = Algorithm::hierarchical;
  CollectiveOptions single_ring;
  single_ring.ring_channels = 1;
  auto h = run_collective_sweep(spec, hier, Op::allreduce, {bytes})[0];
  auto flat = run_collective_sweep(spec, single_ring, Op::allreduce, {bytes})[0];
  // Achieved rates: each GPU reaches its HDR NIC through PCIe Gen4 x16 at 31.5e9 x 0.76 = 23.94e9
  // (below HDR's 25e9 x 0.96 = 24e9); NVSwitch ports 300e9 x 0.80 = 240e9.
  const double rail_Bps = 31.5e9 * 0.76, port_Bps = 300e9 * 0.80;
  const double nic_aggregate_Bps = 8 * rail_Bps;
  EXPECT_LT(h.busbw_Bps, nic_aggregate_Bps);
  EXPECT_GT(h.busbw_Bps, 2 * flat.busbw_Bps);
  // Hand model: intra RS + AG over NVSwitch ports and one inter-node ring per rail.
  const double g = 8, n = 4;
  double expected = 2 * (g - 1) / g * bytes / port_Bps + 2 * (n - 1) / n * (bytes / g) / rail_Bps;
  EXPECT_NEAR(h.time_s, expected, 0.02 * expected);
  // A single flat ring crosses one NIC per node boundary: its bus bandwidth is one HDR rail.
  EXPECT_NEAR(flat.busbw_Bps, rail_Bps, 0.03 * rail_Bps);
}

// NCCL runs one ring per NIC (channels), each leaving the node through its own NIC: the bus
// bandwidth of the flat ring becomes the NIC aggregate of a node.
TEST(RingAllreduce, OneRingPerNicReachesTheNodesNicAggregate) {
  struct Case {
    const char* file;
    double nic_aggregate_Bps;
  };
  // DGX A100: per rail, PCIe Gen4 31.5e9 x 0.76 from the GPU to its HDR NIC (below 25e9 x 0.96); the
  // 8 channels share each 240e9 NVSwitch port (30e9 each), which does not limit them.
  // DGX-1V: the 4 channels run on different NVLink cycles (intra_node_rings: twice the all-NV2
  // cycle each way, 20e9 per ring on its 40e9 links, 80e9 in all), so the NICs bind: per rail the
  // 15.75e9 x 0.76 = 11.97e9 PCIe path to the EDR NIC (below 12.5e9 x 0.96). With every channel a
  // rotation of one cycle, as before, the 4 hops no channel leaves through carried all 4: 40e9.
  for (auto c :
       {Case{"dgx-a100-hdr.json", 8 * 31.5e9 * 0.76}, Case{"dgx1-v100-edr.json", 4 * 15.75e9 * 0.76}}) {
    auto s = run_collective_sweep(load_platform(preset(c.file), 2), CollectiveOptions{}, Op::allreduce,
                                  {1 << 30})[0];
    EXPECT_NEAR(s.busbw_Bps, c.nic_aggregate_Bps, 0.05 * c.nic_aggregate_Bps) << c.file;
  }
}

// Every NIC carries one ring out and one in, and no GPU's own PCIe link carries two rings either way.
TEST(RingOrder, EveryNicCarriesOneRingOutAndOneIn) {
  auto spec = load_platform(preset("dgx1-v100-edr.json"), 2);
  auto orders = multi_ring_orders(spec, 4);
  ASSERT_EQ(orders.size(), 4u);
  std::vector<int> out(4, 0), in(4, 0), gpu_out(8, 0), gpu_in(8, 0);
  for (const auto& order : orders) {
    ++out[size_t(dasim::platform::nic_of_gpu(spec, order[7] % 8))];  // last GPU of node 0 leaves
    ++in[size_t(dasim::platform::nic_of_gpu(spec, order[8] % 8))];   // first GPU of node 1 enters
    ++gpu_out[size_t(order[7] % 8)];
    ++gpu_in[size_t(order[8] % 8)];
  }
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(out[size_t(k)], 1) << "NIC " << k;
    EXPECT_EQ(in[size_t(k)], 1) << "NIC " << k;
  }
  for (int g = 0; g < 8; ++g) {
    EXPECT_LE(gpu_out[size_t(g)], 1) << "GPU " << g;
    EXPECT_LE(gpu_in[size_t(g)], 1) << "GPU " << g;
  }
}

TEST(RingOrder, Dgx1FindsTheAllNv2Cycle) {
  auto spec = load_platform(preset("dgx1-v100-edr.json"), 1);
  auto cycle = best_intra_node_cycle(spec);
  ASSERT_EQ(cycle.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    int a = std::min(cycle[i], cycle[(i + 1) % 8]), b = std::max(cycle[i], cycle[(i + 1) % 8]);
    bool nv2 = false;
    for (const auto& pair : spec.nvlink->pairs) nv2 |= pair.a == a && pair.b == b && pair.links == 2;
    EXPECT_TRUE(nv2) << a << "-" << b;
  }
}

// Inside one DGX-1V every GPU has six NVLinks out (two NV2 pairs, two NV1 pairs): 6 x 25e9 x 0.80
// = 120e9 B/s. One ring uses two of them (the all-NV2 cycle, 2 x 25e9 x 0.80 = 40e9), as dasim did
// before; NCCL's channels take the others too. The search must find six rings of 20e9 each that
// load every directed NVLink exactly to its capacity, and a 1 GiB allreduce on the node (no
// protocol model) must then run at 120e9 bus bandwidth, three times one ring's.
TEST(IntraNodeRings, Dgx1UsesAllSixNvlinksOfEveryGpu) {
  auto spec = load_platform(preset("dgx1-v100-edr.json"), 1);
  const auto rings = dasim::collectives::intra_node_rings(spec);
  EXPECT_TRUE(rings.beats_one_ring);
  ASSERT_EQ(rings.cycles.size(), 6u);
  EXPECT_NEAR(rings.aggregate_Bps, 6 * 25e9 * 0.80, 1);
  std::map<std::pair<int, int>, int> crossings;
  for (const auto& cycle : rings.cycles)
    for (size_t i = 0; i < cycle.size(); ++i) ++crossings[{cycle[i], cycle[(i + 1) % cycle.size()]}];
  for (const auto& pair : spec.nvlink->pairs) {
    EXPECT_EQ((crossings[{pair.a, pair.b}]), pair.links) << pair.a << "->" << pair.b;
    EXPECT_EQ((crossings[{pair.b, pair.a}]), pair.links) << pair.b << "->" << pair.a;
  }
  EXPECT_EQ(crossings.size(), 2 * spec.nvlink->pairs.size());  // no hop off the NVLinks

  CollectiveOptions links;
  links.protocol = dasim::collectives::Protocol::links;
  auto s = run_collective_sweep(spec, links, Op::allreduce, {1 << 30})[0];
  EXPECT_NEAR(s.busbw_Bps, 6 * 25e9 * 0.80, 0.02 * 6 * 25e9 * 0.80);
}

// Where one ring already takes a GPU's whole port or PCIe path, more rings add nothing: NVSwitch
// and PCIe nodes keep the single best cycle, so their collectives are what they were.
TEST(IntraNodeRings, OneRingWhereItTakesThePortOrThePath) {
  for (const char* file : {"dgx-a100-hdr.json", "dgx-h100-ndr.json", "v100-pcie-25gbe.json"}) {
    auto spec = load_platform(preset(file), 1);
    const auto rings = dasim::collectives::intra_node_rings(spec);
    EXPECT_FALSE(rings.beats_one_ring) << file;
    ASSERT_EQ(rings.cycles.size(), 1u) << file;
    EXPECT_EQ(rings.cycles[0], dasim::collectives::best_intra_node_cycle(spec)) << file;
  }
}

}  // namespace

// The hierarchical allreduce's phases start on each rank as its data arrives, but a phase's data
// only moves once its receiver has entered that phase, as NCCL's fixed FIFOs make it wait. On the
// PCIe node (one NIC under the first switch, GPUs 4-7 reaching it through both switch uplinks and
// the inter-socket link), with every latency 0, the inter-node phase is bound by the uplinks:
// GPUs 4-7's four flows share one 15.75e9 x 0.76 = 11.97e9 B/s uplink each way, 2.99e9 each,
// while the NIC carries 24e9 (200 Gb/s) or 48e9 (400 Gb/s) and binds none of them. The
// intra-node phases do not cross the NIC. So the whole allreduce takes the same time at 200 and
// 400 Gb/s; a 100 Gb/s NIC (12e9: eight flows of 1.5e9) binds, and is slower. When the first rails
// could start their all-gather early, its flows took the uplinks from the last rails' inter-node
// flows, and 400 Gb/s was 3.7% slower than 200.
TEST(HierarchicalAllreduce, AFasterNicThatDoesNotBindLeavesItUnchanged) {
  auto time_at = [](const std::string& nic_preset) {
    std::ifstream in(preset("v100-pcie-25gbe.json"));
    auto platform = nlohmann::json::parse(in);
    platform["node"]["gpu"]["calibration"] = preset("calibration/v100-sxm2-deepbench.json");
    for (const char* link : {"gpu_link", "switch_uplink", "inter_socket"})
      platform["node"]["pcie"][link]["latency"] = "0us";
    platform["node"]["nics"][0]["link"] = {{"preset", nic_preset}, {"latency", "0us"}};
    platform["fabric"]["link"] = {{"preset", nic_preset}, {"latency", "0us"}};
    const auto file = dasim::testing::scratch_dir("hierarchical-nic") / (nic_preset + ".json");
    std::ofstream(file) << platform.dump();
    CollectiveOptions hier;
    hier.algorithm = Algorithm::hierarchical;
    return run_collective_sweep(load_platform(file.string(), 2), hier, Op::allreduce, {512.0 * (1 << 20)})[0]
        .time_s;
  };
  const double at_100 = time_at("eth-100g"), at_200 = time_at("eth-200g"), at_400 = time_at("eth-400g");
  EXPECT_NEAR(at_400, at_200, 1e-9 * at_200);
  EXPECT_GT(at_100, 1.05 * at_200);
}

// LL on a ring across 4 DGX H100 nodes moves at NCCL's ceiling, 20.4e9 B/s of bus bandwidth
// (llMaxBws beyond 2 nodes on Intel hosts), not at half of the eight NDR NICs.
TEST(RingAllreduce, LlAcrossNodesRunsAtNcclsCeiling) {
  CollectiveOptions ll;
  ll.protocol = Protocol::ll;
  const auto row = run_collective_sweep(load_platform(preset("dgx-h100-ndr.json"), 4), ll, Op::allreduce,
                                        {double(1 << 30)})[0];
  EXPECT_NEAR(row.busbw_Bps, 20.4e9, 0.05 * 20.4e9);
}
