// NCCL's cost model as dasim uses it for protocols and for `auto` (collectives/nccl_model.hpp):
// the constants of NCCL v2.30.7's tuning.cc, the topology summary read from a platform, and the
// choice of algorithm and protocol, each against numbers worked out by hand.
#include "collectives/nccl_model.hpp"
#include "common/errors.hpp"
#include "platform/platform_loader.hpp"

#include <gtest/gtest.h>

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
  // DGX H100 declares NVLS: 450e9 x 0.686.
  EXPECT_DOUBLE_EQ(summarize_topology(load_platform(preset("dgx-h100-ndr.json"), 1)).nvls_port_Bps,
                   450e9 * 0.686);
}

TEST(NcclModel, PredictedTimeIsLatencyPlusBytesOverAlgorithmBandwidth) {
  // flat-100gbe-64, 8 nodes of 1 GPU (12.5e9 B/s NICs, ideal): ring/Simple = base 8.4 us + 14 steps
  // x 14 us (NET hops) + 2(P-1)/P x S / 12.5e9.
  const double S = 1 << 20;
  EXPECT_NEAR(predicted_time_s(flat(8), Op::allreduce, S, Algorithm::ring, Protocol::simple),
              8.4e-6 + 14 * 14e-6 + 1.75 * S / 12.5e9, 1e-15);
  // tree/LL = base 6.8 us + 2 x log2(8) x 5 us + 1.75 x S / (12.5e9 x 0.92 / 3.8).
  EXPECT_NEAR(predicted_time_s(flat(8), Op::allreduce, S, Algorithm::tree, Protocol::ll),
              6.8e-6 + 2 * 3 * 5e-6 + 1.75 * S / (12.5e9 * 0.92 / 3.8), 1e-15);
}

TEST(NcclModel, AutoPicksTreeBelowTheHandDerivedCrossoverAndRingAbove) {
  // 8 nodes of flat-100gbe-64. Small sizes: tree/LL (36.8 us of latency) against ring/LL (44.4 us):
  // 6.8 + 6 x 5.0 = 36.8, 6.6 + 14 x 2.7 = 44.4. Their slopes: 1.75 / (12.5e9 x 0.242105) and
  // 1.75 / 6.25e9 s/B; they cross at 7.6 us / (5.7826e-10 - 2.8e-10) = 25,481 bytes, where every
  // other pair is slower (LL128: 65 and 70 us of latency; Simple: 92.4 and 204.4 us).
  const auto t = flat(8);
  CollectiveOptions options;
  options.algorithm = Algorithm::automatic;
  options.protocol = Protocol::automatic;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 16384)), "tree/ll");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 25000)), "tree/ll");
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 26000)), "ring/ll");
  // Large: ring/Simple (slope 1.4e-10 s/B) beats every other pair.
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 1 << 30)), "ring/simple");
  // Reduce-scatter has the ring only; a fixed algorithm keeps it and picks the protocol.
  EXPECT_EQ(choose(t, options, Op::reduce_scatter, 8).algorithm, Algorithm::ring);
  options.algorithm = Algorithm::tree;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 1 << 30)), "tree/simple");
  options.algorithm = Algorithm::nvls;  // no NVSwitch
  EXPECT_THROW(choose(t, options, Op::allreduce, 1 << 30), dasim::InputError);
}

TEST(NcclModel, NvlsOnlyWhereItBeatsTheRingAsNcclDoesAtFourGpus) {
  // NVLS busbw is 2(n-1)/(n+1) x 308.7 GB/s: 370.4 at n = 4, just below the ring's 450 x 0.824 =
  // 370.8, and 480 at n = 8. NCCL picks the ring at 4 H200 and NVLS from 5 (stas00/ml-engineering,
  // network/README.md, SHARP section): so does the model.
  TopologySummary t;
  t.nodes = 1;
  t.intra_hop = HopKind::nvlink;
  t.ring_intra_Bps = 450e9 * 0.824;
  t.nvls_port_Bps = 450e9 * 0.686;
  CollectiveOptions options;
  options.algorithm = Algorithm::automatic;
  options.protocol = Protocol::automatic;
  t.ranks = t.gpus_per_node = 4;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 8.0 * (1 << 30))), "ring/simple");
  t.ranks = t.gpus_per_node = 8;
  EXPECT_EQ(describe(choose(t, options, Op::allreduce, 8.0 * (1 << 30))), "nvls/simple");
  EXPECT_FALSE(can_run(t, Op::all_gather, Algorithm::nvls, Protocol::simple));
  EXPECT_FALSE(can_run(t, Op::allreduce, Algorithm::nvls, Protocol::ll));
  t.nodes = 2;
  EXPECT_FALSE(can_run(t, Op::allreduce, Algorithm::nvls, Protocol::simple));  // needs IB SHARP across nodes
}
