// A simulated configuration as a row of the shared result schema: its configuration columns, its
// per-iteration figures, and the weak-scaling speedup over the 1-GPU baseline of the same schedule.
#pragma once

#include "engine/training_simulation.hpp"
#include "results/result_row.hpp"
#include "scenario/scenario.hpp"

#include <string>

namespace dasim::scenario {

results::ResultRow make_result_row(const Scenario& sc, const Configuration& c,
                                   const engine::TrainingResult& result,
                                   const engine::TrainingResult& baseline);

// "platforms/calibration/v100-datasheet.json (datasheet, 0.7 of peak)" or "... (measured on ...)".
std::string calibration_label(const PlatformEntry& platform);

}  // namespace dasim::scenario
