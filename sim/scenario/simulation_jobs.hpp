// The simulations a scenario needs: one per configuration, plus one baseline per (platform,
// workload, precision, batch, schedule, sweep value) that the speedups divide by (on 1 GPU unless
// the scenario's efficiency_baseline says otherwise), each a self-contained job for a
// child process, with the order in which to run them (largest first, so the last job running alone
// is a small one).
#pragma once

#include "engine/training_simulation.hpp"
#include "scenario/scenario.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dasim::scenario {

// The configuration as the engine simulates it; `baseline`: the same on the scenario's baseline
// GPU count, without stragglers or jitter.
engine::TrainingConfig training_config(const Scenario& sc, const Configuration& c, bool baseline);

// What a baseline is shared by: platform, workload, precision, batch, schedule, sweep value.
using BaselineKey = std::tuple<size_t, size_t, size_t, int, size_t, double>;
BaselineKey baseline_key(const Configuration& c);

struct SimulationJobs {
  std::vector<std::function<std::string()>> bodies;  // baselines first, then the selected configurations
  size_t first_configuration = 0;                    // index in bodies of the first selected configuration
  std::vector<size_t> run_order;                     // indices into bodies, largest first
  std::vector<std::string> names;                    // per body, for messages about it
  std::map<BaselineKey, size_t> baseline_job;        // index in bodies

  size_t baseline_of(const Configuration& c) const { return baseline_job.at(baseline_key(c)); }
};

// `selected`: indices into `configs` to simulate (with the baselines they need), in this order.
// `trace_index`: the configuration whose first `trace_ranks` ranks record a timeline.
SimulationJobs plan_jobs(const Scenario& sc, const std::vector<Configuration>& configs,
                         const std::vector<size_t>& selected, std::optional<size_t> trace_index,
                         int trace_ranks);
// Every configuration.
SimulationJobs plan_jobs(const Scenario& sc, const std::vector<Configuration>& configs,
                         std::optional<size_t> trace_index, int trace_ranks);

}  // namespace dasim::scenario
