#include "convergence/steps_to_target.hpp"

namespace dasim::convergence {

std::optional<int> steps_to_target(const std::vector<double>& loss_curve, double target, int window) {
  if (window < 1) return std::nullopt;
  const size_t w = static_cast<size_t>(window);
  // Each window summed afresh: a running sum (add the new loss, subtract the oldest) drifts by
  // rounding, and a curve that touches the target exactly would be read a step late.
  for (size_t end = w; end <= loss_curve.size(); ++end) {
    double sum = 0;
    for (size_t k = end - w; k < end; ++k) sum += loss_curve[k];
    if (sum / window <= target) return static_cast<int>(end);
  }
  return std::nullopt;
}

}  // namespace dasim::convergence
