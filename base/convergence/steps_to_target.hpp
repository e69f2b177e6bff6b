// When a loss curve reaches a target: the one rule dasim-train reports and fit-convergence reads
// runs by, so a fit and the run it came from count steps the same way.
#pragma once

#include <optional>
#include <vector>

namespace dasim::convergence {

// First step (1-based) at which the mean loss over the last `window` steps is <= target; nullopt
// when no step does (or the curve is shorter than the window).
std::optional<int> steps_to_target(const std::vector<double>& loss_curve, double target, int window);

}  // namespace dasim::convergence
