#include "platform/dragonfly.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::platform {

DragonflyShape dragonfly_shape(const DragonflySpec& spec, int nodes) {
  DragonflyShape shape{spec.groups, spec.chassis_per_group, spec.routers_per_chassis, spec.nodes_per_router};
  if (shape.groups == 0)
    shape.groups = std::max(1, (nodes + shape.nodes_per_group() - 1) / shape.nodes_per_group());
  return shape;
}

void validate_dragonfly(const std::string& file, const DragonflySpec& spec, int nodes) {
  const auto shape = dragonfly_shape(spec, nodes);
  if (shape.capacity() < nodes)
    throw InputError(
        file, "fabric.groups",
        fmt::format("dragonfly {} groups x {} chassis x {} routers x {} nodes holds {} nodes, not {}",
                    shape.groups, shape.chassis, shape.routers, shape.nodes_per_router, shape.capacity(),
                    nodes));
  // SimGrid 3.32 (DragonflyZone::generate_links) joins groups i and j through router j of group
  // i's chassis 0 and routes there through the chassis's green links: beyond that it indexes past
  // the routers and crashes.
  if (shape.groups > shape.routers)
    throw InputError(file, spec.groups ? "fabric.groups" : "fabric.routers_per_chassis",
                     fmt::format("{} groups need at least {} routers per chassis (SimGrid's dragonfly links "
                                 "group g to router g of each group's first chassis), got {}",
                                 shape.groups, shape.groups, shape.routers));
}

double dragonfly_bisection_Bps(const DragonflySpec& spec, int nodes, double node_Bps) {
  const auto shape = dragonfly_shape(spec, nodes);
  // a x b pairs across a cut of n parts into halves a = n/2 and b = n - a, all-to-all.
  auto pairs_across = [](long n) { return (n / 2) * (n - n / 2); };
  double cut_Bps = 0;
  if (shape.groups > 1)
    cut_Bps = pairs_across(shape.groups) * spec.links_between_groups * node_Bps;
  else if (shape.chassis > 1)  // one black link per router index between each chassis pair
    cut_Bps = pairs_across(shape.chassis) * shape.routers * spec.links_between_chassis * node_Bps;
  else if (shape.routers > 1)
    cut_Bps = pairs_across(shape.routers) * spec.links_between_routers * node_Bps;
  else
    cut_Bps = (nodes / 2) * node_Bps;  // one router: non-blocking
  return std::min(cut_Bps, (nodes / 2) * node_Bps);
}

}  // namespace dasim::platform
