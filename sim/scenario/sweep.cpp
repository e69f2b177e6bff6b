#include "scenario/sweep.hpp"

#include "platform/platform_variants.hpp"

namespace dasim::scenario {
namespace {
constexpr const char* kHostInput = "host_input";
}

const std::vector<std::string>& sweep_parameters() {
  static const std::vector<std::string> names = [] {
    auto all = platform::sweep_parameters();
    all.emplace_back(kHostInput);
    return all;
  }();
  return names;
}

std::string sweep_parameter_unit(const std::string& parameter) {
  return parameter == kHostInput ? "rate" : platform::sweep_parameter_unit(parameter);
}

std::string sweep_column(const std::string& parameter) {
  return parameter == kHostInput ? "host_input_samples_per_s" : platform::sweep_column(parameter);
}

bool sweeps_platform(const std::string& parameter) {
  return parameter != kHostInput;
}

void apply_sweep(engine::TrainingConfig& config, const std::string& parameter, double value) {
  if (parameter == kHostInput)
    config.host_input_samples_per_s = value;
  else
    platform::apply_sweep(config.platform, parameter, value);
}

}  // namespace dasim::scenario
