// Gradient clearing between steps (see zero_grad.hpp).
#include "workload/zero_grad.hpp"

namespace dasim::workload {

int zero_fill_streams(ZeroGrad mode) {
  return mode == ZeroGrad::set_to_none ? 0 : 1;  // write the gradient
}

int accumulate_streams(ZeroGrad mode) {
  return mode == ZeroGrad::zero ? 3 : 0;  // read the zeroed and the new gradient, write the sum
}

std::string to_string(ZeroGrad mode) {
  return std::string(kZeroGradNames.name(mode));
}

ZeroGrad parse_zero_grad(const std::string& text, const std::string& file, const std::string& json_path) {
  return parse_named(kZeroGradNames, text, "--zero-grad", file, json_path);
}

}  // namespace dasim::workload
