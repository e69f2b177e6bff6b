// The convergence file (format dasim-convergence/1, docs/file-formats.md): the parameters of
// convergence_model.hpp, written by `dasim fit-convergence` or by hand from a paper's figures.
#pragma once

#include "convergence/convergence_model.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace dasim::convergence {

inline constexpr const char* kConvergenceFormat = "dasim-convergence/1";

// InputError `FILE: json.path: what was expected` for anything that is not such a file.
ConvergenceModel load_convergence_file(const std::string& file);
ConvergenceModel convergence_from_json(const nlohmann::json& root, const std::string& file);
// The model's keys (format, source, target_loss, steps_min, batch_noise, their stderr, schedules);
// fit-convergence appends its "fit" section after them.
nlohmann::ordered_json to_json(const ConvergenceModel& model);

}  // namespace dasim::convergence
