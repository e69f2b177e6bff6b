// A simulated configuration as a row of the shared result schema: its configuration columns, its
// per-iteration figures, and the weak-scaling speedup over the baseline (1 GPU unless the scenario
// says otherwise) of the same schedule.
#pragma once

#include "engine/training_simulation.hpp"
#include "results/result_row.hpp"
#include "scenario/scenario.hpp"

#include <string>

namespace dasim::scenario {

results::ResultRow make_result_row(const Scenario& sc, const Configuration& c,
                                   const engine::TrainingResult& result,
                                   const engine::TrainingResult& baseline);

// "v100-datasheet.json (datasheet, 0.7 of peak)" or "... (measured on ...)": the file name, no path.
std::string calibration_label(const PlatformEntry& platform);

}  // namespace dasim::scenario
