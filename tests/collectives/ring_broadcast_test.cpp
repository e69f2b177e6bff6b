// Ring (pipelined chain) broadcast against its closed form, and over NCCL-style channels.
//
// Each channel carries S/C of the buffer along its own ring from the root to the rank before it,
// in K = clamp(ceil((S/C) / 1 MiB), 1, 256) chunks (tree_chunk_bytes, tree_max_chunks); a rank
// forwards a chunk once it has arrived and its previous send is done. On a chain whose P-1 hops
// all take t = alpha + (S/C)/(K B) per chunk, the last rank holds the last chunk after
//   T = (K + P - 2) x (alpha + S/(C K B))   = S/(C B) + (P-2) S/(C K B) + (K + P - 2) alpha,
// the bandwidth term, the pipeline's fill (P-2 chunk steps) and one latency per chunk step.
// nccl-tests' broadcast busbw = algbw = S / T.
//
// flat-100gbe-64 (P single-GPU nodes, one NIC each, so C = 1): GPU -> NIC link (100 Gb/s = 12.5e9
// B/s, 1 us) -> switch port up (12.5e9, 0 us) -> switch port down (0 us) -> NIC link (1 us):
// B = 12.5e9 B/s, alpha = 2 us, transport ideal and CM02 (no efficiency, no latency factor).
#include "collectives/collective_benchmark.hpp"
#include "platform/platform_loader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using namespace dasim::collectives;
using dasim::platform::load_platform;

constexpr double kLinkBps = 12.5e9;
constexpr double kAlpha = 2e-6;

std::string preset(const std::string& name) {
  return std::string(DASIM_SOURCE_DIR) + "/platforms/" + name;
}

double chain_broadcast_s(int p, double bytes) {
  const double k = std::clamp(std::ceil(bytes / (1 << 20)), 1.0, 256.0);
  return (k + p - 2) * (kAlpha + bytes / (k * kLinkBps));
}

CollectiveOptions single_ring(Granularity granularity) {
  CollectiveOptions options;
  options.ring_channels = 1;
  options.granularity = granularity;
  return options;
}

class BroadcastClosedForm : public ::testing::TestWithParam<int> {};

TEST_P(BroadcastClosedForm, SingleRingMatchesThePipelinedChainWithinOnePercent) {
  const int p = GetParam();
  const auto sizes = geometric_sizes(1024, 1024.0 * 1024 * 1024, 32);  // 1 KiB ... 1 GiB
  for (Granularity granularity : {Granularity::coarse, Granularity::fine}) {
    const auto samples = run_collective_sweep(load_platform(preset("flat-100gbe-64.json"), p),
                                              single_ring(granularity), Op::broadcast, sizes);
    ASSERT_EQ(samples.size(), sizes.size());
    for (const auto& s : samples) {
      const double expected = chain_broadcast_s(p, s.bytes);
      EXPECT_NEAR(s.time_s, expected, 0.01 * expected)
          << "P=" << p << " S=" << s.bytes << (granularity == Granularity::fine ? " fine" : " coarse");
      EXPECT_DOUBLE_EQ(s.busbw_Bps, s.algbw_Bps);  // nccl-tests: broadcast busbw factor 1
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, BroadcastClosedForm, ::testing::Values(2, 8, 64));

// DGX A100, 2 nodes: 8 HDR rails per node. A single ring leaves each node through one NIC, whose
// GPU reaches it through PCIe Gen4 x16 at 31.5e9 x 0.76 = 23.94e9 B/s (below HDR's 25e9 x 0.96).
// C rings (one per NIC, or ring_channels) carry S/C each, every ring through its own NIC: C x the
// single ring's busbw, bounded by the node's NIC aggregate 8 x 23.94e9. Compared at equal chunks
// (1 MiB, K = 256: S = C x 256 MiB), so that the per-chunk latency weighs the same; what is left
// is the longer fill of the C chains (they cross both node boundaries, and start together at the
// root, sharing its NVLink ports): under 3 %.
TEST(RingBroadcast, CChannelsGiveCTimesTheSingleRingBusbw) {
  const auto spec = load_platform(preset("dgx-a100-hdr.json"), 2);
  const double rail_Bps = 31.5e9 * 0.76;
  const double per_channel = 256 << 20;
  const auto one =
      run_collective_sweep(spec, single_ring(Granularity::coarse), Op::broadcast, {per_channel})[0];
  EXPECT_NEAR(one.busbw_Bps, rail_Bps, 0.07 * rail_Bps);  // 256 chunk steps of one latency each
  for (int c : {4, 0}) {                                  // 0: one ring per NIC, 8
    CollectiveOptions options;
    options.ring_channels = c;
    const int channels = c == 0 ? 8 : c;
    const auto s = run_collective_sweep(spec, options, Op::broadcast, {channels * per_channel})[0];
    EXPECT_NEAR(s.busbw_Bps, channels * one.busbw_Bps, 0.03 * channels * one.busbw_Bps) << "C=" << channels;
    EXPECT_LT(s.busbw_Bps, 8 * rail_Bps) << "C=" << channels;
  }
  // At 1 GiB the single ring runs 4 MiB chunks: one HDR rail within 3 %.
  const auto big = run_collective_sweep(spec, single_ring(Granularity::coarse), Op::broadcast, {1 << 30})[0];
  EXPECT_NEAR(big.busbw_Bps, rail_Bps, 0.03 * rail_Bps);
}

// Broadcast runs its chunked chains under both granularities (collective_instance.hpp says why).
TEST(RingBroadcast, CoarseAndFineRunTheSameChains) {
  const auto spec = load_platform(preset("dgx-a100-hdr.json"), 2);
  const std::vector<double> sizes{64 << 10, 8 << 20, 1 << 30};
  CollectiveOptions fine;
  fine.granularity = Granularity::fine;
  const auto coarse_samples = run_collective_sweep(spec, CollectiveOptions{}, Op::broadcast, sizes);
  const auto fine_samples = run_collective_sweep(spec, fine, Op::broadcast, sizes);
  for (size_t i = 0; i < sizes.size(); ++i)
    EXPECT_EQ(coarse_samples[i].time_s, fine_samples[i].time_s) << "S=" << sizes[i];
}

TEST(RingBroadcast, SameInputsGiveIdenticalTimes) {
  const auto spec = load_platform(preset("dgx-a100-hdr.json"), 2);
  for (Granularity granularity : {Granularity::coarse, Granularity::fine}) {
    CollectiveOptions options;
    options.granularity = granularity;
    options.protocol = Protocol::automatic;
    const std::vector<double> sizes{4096, 1 << 20, 256 << 20};
    const auto a = run_collective_sweep(spec, options, Op::broadcast, sizes);
    const auto b = run_collective_sweep(spec, options, Op::broadcast, sizes);
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(a[i].time_s, b[i].time_s) << "S=" << sizes[i];
      EXPECT_EQ(a[i].choice, b[i].choice);
    }
  }
}

}  // namespace
