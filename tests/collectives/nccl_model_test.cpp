// NCCL's cost model as dasim uses it for protocols and for `auto` (collectives/nccl_model.hpp):
// the constants of NCCL v2.30.7's tuning.cc, the topology summary read from a platform, and the
// choice of algorithm and protocol, each against numbers worked out by hand.
#include "collectives/nccl_model.hpp"
#include "common/errors.hpp"
#include "platform/platform_loader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using namespace dasim::collectives;
using dasim::platform::load_platform;

std::string preset(const std::string& name) {
  return std::string(DASIM_SOURCE_DIR) + "/platforms/" + name;
}

TopologySummary flat(int nodes) {
  return summarize_topology(load_platform(preset("flat-100gbe-64.json"), nodes));
}

}  // namespace

TEST(NcclModel, ProtocolCostsAreNcclsConstants) {
  const auto ll = protocol_costs(Algorithm::ring, Protocol::ll);
  EXPECT_DOUBLE_EQ(ll.bandwidth_factor, 0.5);  // 8 data bytes per 16-byte line
  EXPECT_DOUBLE_EQ(ll.base_latency_s, 6.6e-6);
  EXPECT_DOUBLE_EQ(ll.hop_latency(HopKind::nvlink), 0.6e-6);
  EXPECT_DOUBLE_EQ(ll.hop_latency(HopKind::net), 2.7e-6);
  const auto simple = protocol_costs(Algorithm::ring, Protocol::simple);
  EXPECT_DOUBLE_EQ(simple.bandwidth_factor, 1.0);
  EXPECT_DOUBLE_EQ(simple.hop_latency(HopKind::pci), 5.7e-6);
  EXPECT_DOUBLE_EQ(protocol_costs(Algorithm::ring, Protocol::ll128).bandwidth_factor, 0.92);
  // NCCL's tree: 0.92 for every protocol, then LL / 3.8 and LL128 x 120/128.
  EXPECT_DOUBLE_EQ(protocol_costs(Algorithm::tree, Protocol::ll).bandwidth_factor, 0.92 / 3.8);
  EXPECT_DOUBLE_EQ(protocol_costs(Algorithm::tree, Protocol::ll128).bandwidth_factor, 0.92 * 120 / 128);
  EXPECT_DOUBLE_EQ(protocol_costs(Algorithm::tree, Protocol::ll).hop_latency(HopKind::net), 5.0e-6);
  EXPECT_DOUBLE_EQ(protocol_costs(Algorithm::nvls, Protocol::simple).hop_latency(HopKind::nvlink), 25e-6);
  const auto links = protocol_costs(Algorithm::ring, Protocol::links);
  EXPECT_DOUBLE_EQ(links.bandwidth_factor, 1.0);
  EXPECT_DOUBLE_EQ(links.base_latency_s, 0.0);
  EXPECT_DOUBLE_EQ(links.hop_latency(HopKind::net), 0.0);
}

TEST(NcclModel, TopologySummaryReadsTheAchievedRates) {
  // DGX A100: NVSwitch ports 300e9 x 0.80; each HDR NIC reached through PCIe Gen4 at 31.5e9 x 0.76.
  const auto t = summarize_topology(load_platform(preset("dgx-a100-hdr.json"), 2));
  EXPECT_EQ(t.ranks, 16);
  EXPECT_EQ(t.intra_hop, HopKind::nvlink);
  EXPECT_DOUBLE_EQ(t.ring_intra_Bps, 300e9 * 0.80);
  EXPECT_DOUBLE_EQ(t.node_nic_Bps, 8 * 31.5e9 * 0.76);
  EXPECT_DOUBLE_EQ(t.nvls_port_Bps, 0);  // no NVLS on A100
  // DGX H100 declares NVLS: 450e9 x 0.824 (NVLink4) x 0.85 (NCCL's NVLS efficiency).
  EXPECT_DOUBLE_EQ(summarize_topology(load_platform(preset("dgx-h100-ndr.json"), 1)).nvls_port_Bps,
                   450e9 * 0.824 * 0.85);
}

TEST(NcclModel, PredictedTimeIsLatencyPlusBytesOverAlgorithmBandwidth) {
  // flat-100gbe-64, 8 nodes of 1 GPU (12.5e9 B/s NICs, ideal): ring/Simple = base 8.4 us + 14 steps
  // x 14 us (NET hops) + 2(P-1)/P x S / 12.5e9.
  const double S = 1 << 20;
  EXPECT_NEAR(predicted_time_s(flat(8), Op::allreduce, S, Algorithm::ring, Protocol::simple),
              8.4e-6 + 14 * 14e-6 + 1.75 * S / 12.5e9, 1e-15);
  // tree/LL = base 6.8 us + 2 x log2(8) x 5 us + S / (0.5 x 12.5e9 x 0.92 / 3.8): NCCL converts a
  // tree's busBw to algorithm bandwidth with a ratio of 0.5, not the ring's n / 2(n-1).
  EXPECT_NEAR(predicted_time_s(flat(8), Op::allreduce, S, Algorithm::tree, Protocol::ll),
              6.8e-6 + 2 * 3 * 5e-6 + 2 * S / (12.5e9 * 0.92 / 3.8), 1e-15);
  // ring/LL with one GPU per node: its 14 network hops at the tree's LL latency (5.0 us, not 2.7).
  EXPECT_NEAR(predicted_time_s(flat(8), Op::allreduce, S, Algorithm::ring, Protocol::ll),
              6.6e-6 + 14 * 5e-6 + 1.75 * S / (12.5e9 * 0.5), 1e-15);
}

TEST(NcclModel, AutoPicksTreeBelowTheHandDerivedCrossoverAndRingAbove) {
  // 8 nodes of flat-100gbe-64 (one GPU each). Latency (us) and slope (s/B) of each pair:
  //   tree/LL      6.8 + 6 x 5.0  =  36.8   2 / (12.5e9 x 0.92 / 3.8)      = 6.6087e-10
  //   tree/LL128  14.0 + 6 x 8.5  =  65.0   2 / (12.5e9 x 0.92 x 120/128)  = 1.8551e-10
  //   tree/Simple  8.4 + 6 x 14   =  92.4   2 / (12.5e9 x 0.92)            = 1.7391e-10
  //   ring/LL      6.6 + 14 x 5.0 =  76.6   1.75 / (12.5e9 x 0.5)          = 2.8e-10
  //   ring/LL128  14.0 + 14 x 8.5 = 133.0   1.75 / (12.5e9 x 0.92)         = 1.5217e-10
  //   ring/Simple  8.4 + 14 x 14  = 204.4   1.75 / 12.5e9                  = 1.4e-10
  // tree/LL leads up to (65 - 36.8) us / (6.6087 - 1.8551)e-10 = 59,323 B, tree/LL128 up to
  // ring/LL128's (133 - 65) / (1.8551 - 1.5217)e-10 = 2.04 MB (tree/Simple is then slower than
  // ring/LL128 at every size), ring/LL128 up to ring/Simple's (204.4 - 133) / (1.5217 - 1.4)e-10
  // = 5.87 MB.
  const auto t = flat(8);
  CollectiveOptions options;
  options.algorithm = Algorithm::automatic;
  options.protocol = Protocol::automatic;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 16384)), "tree/ll");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 59000)), "tree/ll");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 60000)), "tree/ll128");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 2.0e6)), "tree/ll128");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 2.1e6)), "ring/ll128");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 5.8e6)), "ring/ll128");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 5.95e6)), "ring/simple");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 1 << 30)), "ring/simple");
  // Reduce-scatter has the ring only; a fixed algorithm keeps it and picks the protocol.
  EXPECT_EQ(choose(t, options, Op::reduce_scatter, 8).algorithm, Algorithm::ring);
  options.algorithm = Algorithm::tree;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 1 << 30)), "tree/simple");
  options.algorithm = Algorithm::nvls;  // no NVSwitch
  EXPECT_THROW(choose(t, options, Op::allreduce, 1 << 30), dasim::InputError);
  // A tree, hierarchical or nvls setting is for the allreduces: an all-gather (top-k's pairs)
  // runs on rings, with the protocol the setting leaves free.
  for (Algorithm a : {Algorithm::tree, Algorithm::hierarchical, Algorithm::nvls}) {
    options.algorithm = a;
    EXPECT_EQ(describe(choose(t, options, Op::all_gather, 1 << 30)), "ring/simple") << to_string(a);
  }
}

TEST(NcclModel, NvlsOnlyWhereItBeatsTheRing) {
  // NVLS busbw is 2(n-1)/(n+1) x 315.2 GB/s: 315.2 at n = 3, below the ring's 450 x 0.824 = 370.8;
  // 490 at n = 8. (At n = 4 the two are within 2%, 378.2 against 370.8, and the model takes NVLS
  // where NCCL takes the ring on 4 H200: stas00/ml-engineering, network/README.md, SHARP section.)
  TopologySummary t;
  t.nodes = 1;
  t.intra_hop = HopKind::nvlink;
  t.ring_intra_Bps = 450e9 * 0.824;
  t.nvls_port_Bps = 450e9 * 0.824 * 0.85;
  CollectiveOptions options;
  options.algorithm = Algorithm::automatic;
  options.protocol = Protocol::automatic;
  t.ranks = t.gpus_per_node = 3;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 8.0 * (1 << 30))), "ring/simple");
  t.ranks = t.gpus_per_node = 8;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 8.0 * (1 << 30))), "nvls/simple");
  EXPECT_FALSE(can_run(t, Op::all_gather, Algorithm::nvls, Protocol::simple));
  EXPECT_FALSE(can_run(t, Op::allreduce, Algorithm::nvls, Protocol::ll));
  t.nodes = 2;
  EXPECT_FALSE(can_run(t, Op::allreduce, Algorithm::nvls, Protocol::simple));  // needs IB SHARP across nodes
}

TEST(NcclModel, HierarchicalIsPricedAsItsThreePhasesRun) {
  // dasim's hierarchical allreduce (no NCCL algorithm): ring reduce-scatter inside the node, a ring
  // allreduce across the nodes per local GPU, ring all-gather inside the node. On 4 DGX A100
  // nodes: g = 8 over NVSwitch ports (240e9 B/s achieved), N = 4 over the node's 8 HDR rails
  // (8 x 23.94e9 B/s), ring hop latencies NVLink / NET.
  const auto t = summarize_topology(load_platform(preset("dgx-a100-hdr.json"), 4));
  const double S = 64.0 * (1 << 20), intra_Bps = 240e9, nic_Bps = 8 * 31.5e9 * 0.76;
  struct Expected {
    Protocol protocol;
    double base_us, nvlink_hop_us, net_hop_us, factor;
  };
  for (auto e : {Expected{Protocol::ll, 6.6, 0.6, 2.7, 0.5}, Expected{Protocol::ll128, 14.0, 1.9, 4.0, 0.92},
                 Expected{Protocol::simple, 8.4, 3.4, 14.0, 1.0}}) {
    const double expected = (e.base_us + 2 * 7 * e.nvlink_hop_us + 2 * 3 * e.net_hop_us) * 1e-6 +
                            2 * 7.0 / 8 * S / (intra_Bps * e.factor) + 2 * 3.0 / 4 * S / (nic_Bps * e.factor);
    EXPECT_NEAR(predicted_time_s(t, Op::allreduce, S, Algorithm::hierarchical, e.protocol), expected, 1e-12)
        << to_string(e.protocol);
  }
  // 256 DGX H100 nodes, one 256 MiB bucket: NVLink4 ports 450e9 x 0.824 = 370.8e9, 8 NDR rails of
  // 50e9 x 0.96 = 48e9 (384e9 a node). Transfer at full rate: 1.75 S / 370.8e9 + 1.992 S / 384e9
  // = 2.66 ms. Latency (us) and transfer (ms) of each protocol:
  //   LL      6.6 + 14 x 0.6 + 510 x 2.7 = 1392    2.66 / 0.5  = 5.32
  //   LL128  14.0 + 14 x 1.9 + 510 x 4.0 = 2081    2.66 / 0.92 = 2.89
  //   Simple  8.4 + 14 x 3.4 + 510 x 14  = 7196    2.66 / 1    = 2.66
  // so LL128 (4.97 ms) before LL (6.71) and Simple (9.86). A flat ring's 4094 steps would make it
  // LL (old behaviour, which ran 37% slower than LL128 in BERT-large's local SGD at 2048 GPUs).
  const auto h100 = summarize_topology(load_platform(preset("dgx-h100-ndr.json"), 256));
  CollectiveOptions options;
  options.algorithm = Algorithm::hierarchical;
  options.protocol = Protocol::automatic;
  EXPECT_EQ(describe(choose(h100, options, Op::allreduce, 256.0 * (1 << 20))), "hierarchical/ll128");
  EXPECT_NEAR(
      predicted_time_s(h100, Op::allreduce, 256.0 * (1 << 20), Algorithm::hierarchical, Protocol::ll128),
      4.97e-3, 0.01e-3);
}

// NCCL's tuner holds LL's bus bandwidth under llMaxBws (tuning.cc): beyond 2 nodes 20.4e9 on Intel
// hosts and 19.0e9 on AMD ones, on 2 nodes 39.0e9 and 22.5e9, inside one node by GPU generation
// (Hopper 141.0e9). On DGX H100 (8 NDR NICs, far above any of these) the predicted time's slope in
// bytes is then 2(n-1)/n / ceiling for the ring and 2 / ceiling for the tree (NCCL's tree ratio).
TEST(NcclModel, LlBusBandwidthIsHeldUnderNcclsCeiling) {
  auto slope = [](const TopologySummary& t, Algorithm a, Protocol p) {
    const double small = 1 << 28, large = 1 << 29;
    return (predicted_time_s(t, Op::allreduce, large, a, p) -
            predicted_time_s(t, Op::allreduce, small, a, p)) /
           (large - small);
  };
  auto h100 = [](int nodes) { return summarize_topology(load_platform(preset("dgx-h100-ndr.json"), nodes)); };
  EXPECT_DOUBLE_EQ(h100(4).ll_max_busbw_Bps, 20.4e9);
  EXPECT_NEAR(slope(h100(4), Algorithm::ring, Protocol::ll), 2.0 * 31 / 32 / 20.4e9, 1e-6 / 20.4e9);
  EXPECT_NEAR(slope(h100(4), Algorithm::tree, Protocol::ll), 2.0 / 20.4e9, 1e-6 / 20.4e9);
  EXPECT_NEAR(slope(h100(2), Algorithm::ring, Protocol::ll), 2.0 * 15 / 16 / 39.0e9, 1e-6 / 39.0e9);
  EXPECT_NEAR(slope(h100(1), Algorithm::ring, Protocol::ll), 2.0 * 7 / 8 / 141.0e9, 1e-6 / 141.0e9);
  // DGX A100's AMD hosts: 19.0e9 beyond 2 nodes.
  EXPECT_DOUBLE_EQ(summarize_topology(load_platform(preset("dgx-a100-hdr.json"), 4)).ll_max_busbw_Bps,
                   19.0e9);
  // The other protocols keep their fractions: Simple's slope is 2(n-1)/n over the slower of the
  // NVLink ring and the NICs.
  const auto t = h100(4);
  const double busbw = std::min(t.ring_intra_Bps, t.node_nic_Bps);
  EXPECT_NEAR(slope(t, Algorithm::ring, Protocol::simple), 2.0 * 31 / 32 / busbw, 1e-6 / busbw);
  // Below the ceiling nothing changes: 8 single-GPU nodes of 100 GbE reach 12.5e9 x 0.5 with LL.
  EXPECT_NEAR(slope(flat(8), Algorithm::ring, Protocol::ll), 1.75 / (12.5e9 * 0.5), 1e-6 / 6.25e9);
  // A GPU dasim cannot place keeps no ceiling.
  auto unknown = load_platform(preset("dgx-h100-ndr.json"), 4);
  unknown.gpu.generation = dasim::platform::GpuGeneration::unknown;
  EXPECT_TRUE(std::isinf(summarize_topology(unknown).ll_max_busbw_Bps));
  // With the ceiling `auto` takes LL128 for a 1 MiB allreduce on 4 DGX H100 nodes, where the
  // uncapped LL was the choice (and the slower one when simulated).
  CollectiveOptions options;
  options.algorithm = Algorithm::automatic;
  options.protocol = Protocol::automatic;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 1 << 20)), "tree/ll128");
}

TEST(NcclModel, ModelNamesGiveTheGpuGeneration) {
  using dasim::platform::generation_of_model;
  using dasim::platform::GpuGeneration;
  EXPECT_EQ(generation_of_model("V100-SXM2-16GB"), GpuGeneration::volta);
  EXPECT_EQ(generation_of_model("P100-PCIE-16GB"), GpuGeneration::volta);  // NCCL: below 8.0
  EXPECT_EQ(generation_of_model("A100-SXM4-80GB"), GpuGeneration::ampere);
  EXPECT_EQ(generation_of_model("H200-SXM-141GB"), GpuGeneration::hopper);
  EXPECT_EQ(generation_of_model("GH200"), GpuGeneration::hopper);
  EXPECT_EQ(generation_of_model("B200 (GB200)"), GpuGeneration::blackwell);
  EXPECT_EQ(generation_of_model("GB200"), GpuGeneration::blackwell);
  EXPECT_EQ(generation_of_model("cpu-rank"), GpuGeneration::unknown);
}
