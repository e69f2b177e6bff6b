#include "platform/route_probe.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <limits>

namespace dasim::platform {

ProbedRoute probe_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  std::vector<simgrid::s4u::Link*> links;
  ProbedRoute r;
  r.bandwidth_Bps = std::numeric_limits<double>::infinity();
  from->route_to(to, links, &r.latency_s);
  for (auto* l : links) r.bandwidth_Bps = std::min(r.bandwidth_Bps, l->get_bandwidth());
  r.hops = links.size();
  return r;
}

ProbedRoutes probe_routes(const PlatformSpec& spec, const BuiltPlatform& built) {
  const auto& gpus = built.gpus;
  const int g = spec.gpus_per_node;
  ProbedRoutes routes;
  routes.inside_node.assign(size_t(g), std::vector<ProbedRoute>(size_t(g)));
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b)
      if (a != b) routes.inside_node[size_t(a)][size_t(b)] = probe_route(gpus[size_t(a)], gpus[size_t(b)]);
  if (spec.nodes > 1)
    for (int a = 0; a < g; ++a)
      routes.across_fabric.push_back(probe_route(gpus[size_t(a)], gpus[size_t((spec.nodes - 1) * g + a)]));
  return routes;
}

}  // namespace dasim::platform
