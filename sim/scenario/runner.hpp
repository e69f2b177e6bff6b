// Runs every configuration of a scenario (independent configurations in parallel child
// processes), adds the one-GPU baselines the speedups divide by, and produces result rows in the
// shared schema. Progress with an ETA goes to stderr unless quiet.
#pragma once

#include "results/result_row.hpp"
#include "scenario/scenario.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dasim::scenario {

struct RunOptions {
  int jobs = 1;
  bool quiet = false;
  std::optional<size_t> trace_index;  // configuration whose timeline to record
  int trace_ranks = 64;               // ranks included in the trace
};

struct RunOutput {
  std::vector<results::ResultRow> rows;  // in expand() order
  nlohmann::json trace;                 // Chrome trace events of trace_index, or null
  double wall_s = 0;
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options);

// "platforms/calibration/v100-datasheet.json (datasheet, 0.7 of peak)" or "... (measured)".
std::string calibration_label(const PlatformEntry& platform);

}  // namespace dasim::scenario
