// PolledRing (progress polled_rounds) against hand-derived timelines on flat-100gbe-64, 2 ranks:
// a round copies a chunk of S / 2 over NIC - switch - NIC, c = (S / 2) / 12.5e9 + 2 us.
#include "collectives/communicator.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <sstream>

namespace {

namespace sg4 = simgrid::s4u;
using namespace dasim;

constexpr double kBytes = 40e6;
constexpr double kCopy = kBytes / 2 / 12.5e9 + 2e-6;  // 1.602 ms

// Runs two ranks: rank 0 starts at 0 and, if poll_at_s > 0, computes until poll_at_s and polls once
// there; rank 1 starts at start_1_s. Both then wait. Returns "end0 end1 polls0" (seconds).
std::string run(double poll_at_s, double start_1_s) {
  return runtime::run_isolated([&] {
    auto spec = platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/flat-100gbe-64.json", 2);
    runtime::Simulation sim(spec);
    collectives::Communicator comm(spec, sim.platform(), collectives::CollectiveOptions{});
    double end[2] = {0, 0}, polls0 = 0;
    sg4::Actor::create("rank0", sim.platform().gpus[0], [&] {
      auto ring = comm.join_polled_ring(0, kBytes);
      ring->progress(0);
      if (poll_at_s > 0) {
        sg4::this_actor::sleep_until(poll_at_s);
        ring->progress(0);
        polls0 = sg4::Engine::get_clock() - poll_at_s;
      }
      ring->wait(0);
      end[0] = sg4::Engine::get_clock();
    });
    sg4::Actor::create("rank1", sim.platform().gpus[1], [&] {
      sg4::this_actor::sleep_until(start_1_s);
      auto ring = comm.join_polled_ring(1, kBytes);
      ring->progress(1);
      ring->wait(1);
      end[1] = sg4::Engine::get_clock();
    });
    sim.engine().run();
    std::ostringstream out;
    out.precision(17);
    out << end[0] << ' ' << end[1] << ' ' << polls0;
    return out.str();
  });
}

// Both ranks start and wait together: the two rounds' copies run side by side (full-duplex
// links), so both finish at 2c, the alpha-beta ring allreduce 2 (P-1)/P S / B + 2 (P-1) x 2 us.
TEST(PolledRing, RanksWaitingTogetherTakeTheRingAllreduce) {
  std::istringstream in(run(0, 0));
  double end0 = 0, end1 = 0, polls0 = 0;
  in >> end0 >> end1 >> polls0;
  const double ring = kBytes / 12.5e9 + 2 * 2e-6;
  EXPECT_NEAR(end0, ring, 1e-9);
  EXPECT_NEAR(end1, ring, 1e-9);
}

// Rank 0 starts at 0 and computes until its poll at 10 ms; rank 1 starts at 1 ms and waits. Rank 1
// copies rank 0's round-0 chunk at once (1 ms to 1 ms + c), but its round ends only when rank 0 has
// copied rank 1's chunk, at rank 0's poll: 10 ms to 10 ms + c. Round 1 follows, both copying from
// 10 ms + c, inside rank 0's poll or its wait and rank 1's wait: both done at 10 ms + 2c, where a
// collective that advanced on its own would be done at 1 ms + 2c. Rank 0's poll lasts at least c.
TEST(PolledRing, ALateRanksWaitsForItsPeersNextPoll) {
  std::istringstream in(run(10e-3, 1e-3));
  double end0 = 0, end1 = 0, polls0 = 0;
  in >> end0 >> end1 >> polls0;
  EXPECT_NEAR(end0, 10e-3 + 2 * kCopy, 1e-9);
  EXPECT_NEAR(end1, 10e-3 + 2 * kCopy, 1e-9);
  EXPECT_GE(polls0, kCopy - 1e-9);
  EXPECT_LE(polls0, 2 * kCopy + 1e-9);
}

// P ranks that start and wait together: every round's P copies run side by side, 2 (P - 1) rounds
// of c = (S / P) / B + 2 us: the alpha-beta ring allreduce on every rank.
TEST(PolledRing, AnyRingOfWaitingRanksTakesTheRingAllreduce) {
  for (int p : {3, 4, 8}) {
    const std::string out = runtime::run_isolated([&] {
      auto spec =
          platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/flat-100gbe-64.json", p);
      runtime::Simulation sim(spec);
      collectives::Communicator comm(spec, sim.platform(), collectives::CollectiveOptions{});
      std::vector<double> end(size_t(p), 0);
      for (int rank = 0; rank < p; ++rank)
        sg4::Actor::create("rank", sim.platform().gpus[size_t(rank)], [&, rank] {
          auto ring = comm.join_polled_ring(rank, kBytes);
          ring->wait(rank);
          end[size_t(rank)] = sg4::Engine::get_clock();
        });
      sim.engine().run();
      std::ostringstream text;
      text.precision(17);
      for (double t : end) text << t << ' ';
      return text.str();
    });
    std::istringstream in(out);
    const double ring = 2.0 * (p - 1) / p * kBytes / 12.5e9 + 2.0 * (p - 1) * 2e-6;
    for (int rank = 0; rank < p; ++rank) {
      double end = 0;
      in >> end;
      EXPECT_NEAR(end, ring, 1e-9) << "P=" << p << " rank " << rank;
    }
  }
}

}  // namespace
