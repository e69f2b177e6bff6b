// Test helper: simulates a set of simultaneous GPU-to-GPU transfers on a platform (in a child
// process, one SimGrid engine each) and returns each transfer's completion time.
#pragma once

#include "platform/platform_spec.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"

#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>

#include <utility>
#include <vector>

namespace dasim::testing {

inline std::vector<double> simulate_transfers(const platform::PlatformSpec& spec,
                                              const std::vector<std::pair<int, int>>& rank_pairs,
                                              double bytes) {
  std::string out = runtime::run_isolated([&] {
    runtime::Simulation sim(spec);
    std::vector<double> done(rank_pairs.size(), -1);
    for (size_t i = 0; i < rank_pairs.size(); ++i) {
      auto* src = sim.platform().gpus.at(static_cast<size_t>(rank_pairs[i].first));
      auto* dst = sim.platform().gpus.at(static_cast<size_t>(rank_pairs[i].second));
      simgrid::s4u::Actor::create("probe", src, [src, dst, bytes, &done, i] {
        simgrid::s4u::Comm::sendto_async(src, dst, bytes)->wait();
        done[i] = simgrid::s4u::Engine::get_clock();
      });
    }
    sim.engine().run();
    return nlohmann::json(done).dump();
  });
  return nlohmann::json::parse(out).get<std::vector<double>>();
}

}  // namespace dasim::testing
