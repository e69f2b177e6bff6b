// Chrome / Perfetto trace JSON of a simulated configuration: one process per node, one thread per
// GPU for its compute and waits, and a second thread per GPU for its collectives (they overlap
// compute on the same GPU). Times in microseconds, as the format wants.
#pragma once

#include "engine/training_simulation.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace dasim::report {

// The "traceEvents" array.
nlohmann::json chrome_trace_events(const std::vector<engine::RankTrace>& trace, int gpus_per_node);

}  // namespace dasim::report
