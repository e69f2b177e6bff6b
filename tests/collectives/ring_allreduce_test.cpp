// Ring allreduce on the closed-form reference platform against the alpha-beta model
//   T = 2(P-1)/P x S/B + 2(P-1) x alpha,  B = 12.5e9 B/s, alpha = 2 us (NIC 1 us each side).
#include "collectives/collective_benchmark.hpp"
#include "collectives/communicator.hpp"
#include "collectives/symmetry.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <sstream>

namespace {

using namespace dasim::collectives;

constexpr double kLinkBps = 12.5e9;
constexpr double kAlpha = 2e-6;

dasim::platform::PlatformSpec flat(int nodes) {
  return dasim::platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/flat-100gbe-64.json",
                                        nodes);
}

double alpha_beta_ring(int p, double bytes) {
  return 2.0 * (p - 1) / p * bytes / kLinkBps + 2.0 * (p - 1) * kAlpha;
}

class RingClosedForm : public ::testing::TestWithParam<int> {};

TEST_P(RingClosedForm, MatchesAlphaBetaWithinOnePercentFrom1KiBTo1GiB) {
  const int p = GetParam();
  std::vector<double> sizes = geometric_sizes(1024, 1024.0 * 1024 * 1024, 32);  // 1 KiB, 32 KiB, ... 1 GiB
  auto samples = run_collective_sweep(flat(p), CollectiveOptions{}, Op::allreduce, sizes);
  ASSERT_EQ(samples.size(), sizes.size());
  for (const auto& s : samples) {
    double expected = alpha_beta_ring(p, s.bytes);
    EXPECT_NEAR(s.time_s, expected, 0.01 * expected) << "P=" << p << " S=" << s.bytes;
  }
  // At 1 GiB the bus bandwidth approaches the link bandwidth, as far as 2(P-1) latencies allow
  // (at 4096 ranks they are 16 ms of 188: 91%), and counts all P ranks when folded.
  const double gib = samples.back().bytes;
  const double busbw = 2.0 * (p - 1) / p * gib / alpha_beta_ring(p, gib);
  EXPECT_NEAR(samples.back().busbw_Bps, busbw, 0.02 * busbw);
  if (p <= 64) {
    EXPECT_NEAR(samples.back().busbw_Bps, kLinkBps, 0.02 * kLinkBps);
  }
}

// 8 ranks and more fold onto two nodes (symmetry.hpp): 4096 is simulated as 2.
INSTANTIATE_TEST_SUITE_P(Ranks, RingClosedForm, ::testing::Values(2, 8, 64, 4096));

TEST(RingAllreduce, AFoldedSweepTakesTheWholeSweepsTimes) {
  // 16 DGX A100 nodes: 8 rings across the nodes, and the hierarchical algorithm's rings; an
  // allreduce and an all-gather, folded onto 2 nodes against all 16 simulated.
  const auto spec =
      dasim::platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/dgx-a100-hdr.json", 16);
  const std::vector<double> sizes{1 << 20, 64 << 20};
  for (auto [op, algorithm] :
       {std::pair{Op::allreduce, Algorithm::ring}, std::pair{Op::allreduce, Algorithm::hierarchical},
        std::pair{Op::all_gather, Algorithm::ring}}) {
    CollectiveOptions options;
    options.algorithm = algorithm;
    ASSERT_EQ(why_not_symmetric(spec, options, {{op, sizes[0]}, {op, sizes[1]}}), "");
    const auto folded = run_collective_sweep(spec, options, op, sizes);
    options.fold = false;
    const auto whole = run_collective_sweep(spec, options, op, sizes);
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_NEAR(folded[i].time_s, whole[i].time_s, 1e-3 * whole[i].time_s)
          << to_string(op) << " " << sizes[i];
      EXPECT_EQ(folded[i].busbw_Bps > 0, true);
      EXPECT_NEAR(folded[i].busbw_Bps, whole[i].busbw_Bps, 1e-3 * whole[i].busbw_Bps);
    }
  }
}

TEST(RingAllreduce, FineGrainedMessagesAgreeWithCoarseFlows) {
  for (int p : {4, 16}) {
    std::vector<double> sizes{4096, 1 << 20, 64 << 20};
    CollectiveOptions fine;
    fine.granularity = Granularity::fine;
    auto coarse_samples = run_collective_sweep(flat(p), CollectiveOptions{}, Op::allreduce, sizes);
    auto fine_samples = run_collective_sweep(flat(p), fine, Op::allreduce, sizes);
    for (size_t i = 0; i < sizes.size(); ++i)
      EXPECT_NEAR(coarse_samples[i].time_s, fine_samples[i].time_s, 0.02 * fine_samples[i].time_s)
          << "P=" << p << " S=" << sizes[i];
    // The fine form is also the closed form.
    EXPECT_NEAR(fine_samples[2].time_s, alpha_beta_ring(p, sizes[2]), 0.01 * alpha_beta_ring(p, sizes[2]));
  }
}

TEST(RingAllreduce, TwoConcurrentAllreducesOnTheSameLinksEachTakeTwiceAsLong) {
  const double bytes = 256e6;
  auto one = run_collective_sweep(flat(8), CollectiveOptions{}, Op::allreduce, {bytes}, 1);
  auto two = run_collective_sweep(flat(8), CollectiveOptions{}, Op::allreduce, {bytes}, 2);
  EXPECT_NEAR(two[0].time_s / one[0].time_s, 2.0, 0.05);
}

TEST(RingAllreduce, ReduceScatterAndAllGatherAreHalfAnAllreduce) {
  const int p = 8;
  const double bytes = 128e6;
  double half = (p - 1.0) / p * bytes / kLinkBps + (p - 1) * kAlpha;
  for (Op op : {Op::reduce_scatter, Op::all_gather}) {
    auto s = run_collective_sweep(flat(p), CollectiveOptions{}, op, {bytes});
    EXPECT_NEAR(s[0].time_s, half, 0.01 * half) << to_string(op);
    EXPECT_NEAR(s[0].busbw_Bps, kLinkBps, 0.02 * kLinkBps);
  }
}

TEST(RingAllreduce, ReductionComputeAddsBytesOverMemoryBandwidth) {
  const int p = 4;
  const double bytes = 64e6;
  CollectiveOptions with;
  with.reduction_compute = true;
  with.memory_bandwidth_Bps = 900e9;
  auto base = run_collective_sweep(flat(p), CollectiveOptions{}, Op::allreduce, {bytes});
  auto reduced = run_collective_sweep(flat(p), with, Op::allreduce, {bytes});
  // (P-1) reduce-scatter steps, each reducing S/P: read 2, write 1 -> 3 x S/P / 900e9.
  double extra = (p - 1) * 3 * (bytes / p) / 900e9;
  EXPECT_NEAR(reduced[0].time_s - base[0].time_s, extra, 0.01 * extra);
}

}  // namespace

// With coarse flows each rank moves a ring phase's bytes in one flow. On 2 nodes of v100-pcie-25gbe
// the one ring's two node-crossing hops run at a 25 GbE NIC's 3e9 B/s and the other 14 at PCIe's
// 11.97e9, so those 14 flows end 4x sooner. But a ring's data passes through its slowest hop: no
// rank holds the result before that hop's flow is done. Every rank ends each phase together (the
// simulator's phase barrier), apart from its own hop latency (microseconds of ~50 ms).
TEST(RingAllreduce, RanksOfOneRingEndTogetherWhenTheirHopsDiffer) {
  const std::string ends = dasim::runtime::run_isolated([] {
    auto spec =
        dasim::platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/v100-pcie-25gbe.json", 2);
    dasim::runtime::Simulation sim(spec);
    dasim::collectives::Communicator comm(spec, sim.platform(), dasim::collectives::CollectiveOptions{});
    std::vector<double> end(16, 0);
    for (int r = 0; r < 16; ++r)
      simgrid::s4u::Actor::create("rank", sim.platform().gpus[size_t(r)], [&, r] {
        auto pending = comm.start(r, dasim::collectives::Op::allreduce, 64e6);
        pending->wait();
        end[size_t(r)] = pending->finished_at();
      });
    sim.engine().run();
    const auto [lo, hi] = std::minmax_element(end.begin(), end.end());
    return std::to_string(*hi - *lo) + " " + std::to_string(*hi);
  });
  double spread = 0, last = 0;
  std::istringstream(ends) >> spread >> last;
  EXPECT_GT(last, 0);
  EXPECT_LT(spread, 1e-3 * last);
}

namespace {

// A link whose transport reaches e of its line rate gives the ring busbw e x B: the bandwidth
// term of the closed form scales by 1/e, the latency term does not move. RoCE's e = 0.96 and a
// stated e = 0.5 on the NICs and the switch ports of flat-100gbe-64 (8 nodes, protocol links).
TEST(RingAllreduce, ALinkWithEfficiencyEGivesRingBusbwETimesTheLineRate) {
  for (double e : {0.96, 0.5}) {
    auto spec = flat(8);
    for (auto* link : {&spec.nics[0].link, &spec.fabric.link}) {
      link->transport = dasim::platform::Transport::roce;
      if (e != 0.96) link->efficiency = e;
    }
    const double S = 1 << 30;
    const auto s = run_collective_sweep(spec, CollectiveOptions{}, Op::allreduce, {S})[0];
    const double expected = 2.0 * 7 / 8 * S / (e * kLinkBps) + 2.0 * 7 * kAlpha;
    EXPECT_NEAR(s.time_s, expected, 1e-3 * expected) << "e = " << e;
    EXPECT_NEAR(s.busbw_Bps, e * kLinkBps, 0.01 * e * kLinkBps) << "e = " << e;
  }
}

}  // namespace
