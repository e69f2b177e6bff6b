// The form in which a TrainingResult crosses from the simulation child to the parent process
// (runtime/isolated_run.hpp): JSON, whose numbers round-trip doubles exactly, so the parent sees
// the child's figures bit for bit.
#pragma once

#include "engine/training_simulation.hpp"

#include <string>

namespace dasim::engine {

std::string to_wire(const TrainingResult& result);
TrainingResult training_result_from_wire(const std::string& text);

// simulate_training in a child process (one SimGrid engine per process), its result brought back.
TrainingResult simulate_training_isolated(const TrainingConfig& config);

}  // namespace dasim::engine
