// `dasim validate`: recognises what kind of dasim input a JSON file is (platform, scenario,
// workload, calibration) from its keys, and runs that kind's strict loader on it.
#pragma once

#include <string>

namespace dasim::validate {

// Returns a one-line description of the valid file ("platform dgx1-v100-edr: 16 nodes x 8 GPUs").
// Throws InputError for an invalid file or one whose kind cannot be recognised.
std::string validate_file(const std::string& file);

}  // namespace dasim::validate
