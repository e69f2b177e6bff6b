// The routes SimGrid really built, read back from a platform in a running engine, so that
// `dasim platform show` prints what the simulator will use rather than what the spec intends.
#pragma once

#include "platform/platform_builder.hpp"
#include "platform/platform_spec.hpp"

#include <cstddef>
#include <vector>

namespace dasim::platform {

struct ProbedRoute {
  double bandwidth_Bps = 0;  // of the bottleneck link
  double latency_s = 0;      // summed over the links
  size_t hops = 0;           // links crossed
};

ProbedRoute probe_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to);

struct ProbedRoutes {
  std::vector<std::vector<ProbedRoute>> inside_node;  // [a][b]: GPU a -> GPU b of node 0 (a != b)
  std::vector<ProbedRoute> across_fabric;             // [a]: GPU a of node 0 -> GPU a of the last node
};

ProbedRoutes probe_routes(const PlatformSpec& spec, const BuiltPlatform& built);

}  // namespace dasim::platform
