// Runs every configuration of a scenario (independent configurations in parallel child
// processes), adds the one-GPU baselines the speedups divide by, and produces result rows in the
// shared schema. Progress with an ETA goes to stderr unless quiet.
#pragma once

#include "engine/training_simulation.hpp"
#include "results/result_row.hpp"
#include "scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dasim::scenario {

struct RunOptions {
  int jobs = 1;
  bool quiet = false;
  std::optional<size_t> trace_index;  // configuration whose timeline to record
  int trace_ranks = 64;               // ranks included in the trace
  // Only these configurations (expand() indices, ascending; a shard of the scenario); all if unset.
  std::optional<std::vector<size_t>> configurations;
};

struct TracedConfiguration {
  size_t index = 0;  // in expand() order
  int gpus_per_node = 1;
  std::vector<engine::RankTrace> ranks;
};

struct RunOutput {
  std::vector<results::ResultRow> rows;      // in expand() order
  std::vector<size_t> indices;               // per row, its configuration's expand() index
  std::optional<TracedConfiguration> trace;  // when RunOptions::trace_index is set
  double wall_s = 0;
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace dasim::scenario
