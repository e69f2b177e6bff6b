// What `dasim platform show` prints: node and fabric figures, bisection bandwidth, and the
// GPU-to-GPU matrix of one node read back from the SimGrid routes, in the spirit of
// `nvidia-smi topo -m`.
#pragma once

#include "platform/platform_spec.hpp"
#include "platform/route_probe.hpp"

#include <string>

namespace dasim::report {

std::string render_platform_summary(const platform::PlatformSpec& spec, const platform::ProbedRoutes& routes);

// Builds the platform in a SimGrid engine, probes its routes and renders the summary. One engine
// per process: call inside runtime::run_isolated.
std::string simulate_platform_summary(const platform::PlatformSpec& spec);

}  // namespace dasim::report
