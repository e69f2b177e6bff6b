// nccl-tests-style measurement of a collective on a simulated platform: every rank runs the
// collective for each size in turn (with a barrier between sizes); a size's time is from its
// common start to the last rank's completion. Used by `dasim collective`, tests and bench/.
#pragma once

#include "collectives/collective_types.hpp"
#include "platform/platform_spec.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dasim::collectives {

struct CollectiveSample {
  double bytes = 0;
  double time_s = 0;
  double algbw_Bps = 0;  // bytes / time
  double busbw_Bps = 0;  // algbw x bus_bandwidth_factor(op, ranks)
  std::string choice;    // the algorithm/protocol that ran, e.g. "ring/simple"
};

// The samples as they cross from the simulation child to the parent (doubles exact).
std::string to_wire(const std::vector<CollectiveSample>& samples);
std::vector<CollectiveSample> samples_from_wire(const std::string& text);

// Simulates in the calling process (one SimGrid engine: wrap in runtime::run_isolated), on two of
// the nodes when the sweep is symmetric (symmetry.hpp; options.fold false: every node).
// `concurrent` > 1 starts that many identical collectives at once on every rank and reports the
// time until all have finished.
std::vector<CollectiveSample> simulate_collective_sweep(const platform::PlatformSpec& spec,
                                                        const CollectiveOptions& options, Op op,
                                                        const std::vector<double>& sizes_bytes,
                                                        int concurrent = 1,
                                                        const std::function<void(size_t)>& on_size_done = {});

// Same, isolated in a child process.
std::vector<CollectiveSample> run_collective_sweep(const platform::PlatformSpec& spec,
                                                   const CollectiveOptions& options, Op op,
                                                   const std::vector<double>& sizes_bytes,
                                                   int concurrent = 1);

// min, min*factor, ... up to max (nccl-tests -b -e -f).
std::vector<double> geometric_sizes(double min_bytes, double max_bytes, double factor);

}  // namespace dasim::collectives
