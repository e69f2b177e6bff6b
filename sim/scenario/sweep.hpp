// What a scenario's `sweep` may vary: the platform's parameters (platform/platform_variants.hpp)
// and the rate of a node's host input pipeline, which is the scenario's (`host_input`), not the
// platform's: "what loader rate keeps 8 GPUs at 95%?" is a sweep like "what fabric keeps 90%?".
#pragma once

#include "engine/training_simulation.hpp"

#include <string>
#include <vector>

namespace dasim::scenario {

// The platform's sweep parameters, then host_input (samples per second one node's host prepares).
const std::vector<std::string>& sweep_parameters();
// "bandwidth" | "time" | "number" | "rate" (samples per second); empty for an unknown parameter.
std::string sweep_parameter_unit(const std::string& parameter);
// Column name in results: the platform's (inter_node_bandwidth_Bps, fabric_latency_s, ...) or
// host_input_samples_per_s.
std::string sweep_column(const std::string& parameter);
// Whether the parameter is the platform's (apply it to each platform to check it exists there).
bool sweeps_platform(const std::string& parameter);
// Applies `value` (in SI units) to the configuration: its platform, or its host input rate.
void apply_sweep(engine::TrainingConfig& config, const std::string& parameter, double value);

}  // namespace dasim::scenario
