// A dragonfly fabric's shape for a node count, checked against what SimGrid 3.32's dragonfly can
// route, and its bisection bandwidth. Pure functions of the spec (no SimGrid).
//
//   group 0                                 group 1
//   chassis 0: [r0]-[r1]-[r2]-[r3]  <-- blue (group) link: router g of chassis 0 <-> group g
//                 |  black: same-index routers of the group's chassis, all-to-all
//   chassis 1: [r0]-[r1]-[r2]-[r3]      green: routers of one chassis, all-to-all
//               ||   nodes_per_router nodes on each router (a node's rails as one link)
#pragma once

#include "platform/platform_spec.hpp"

namespace dasim::platform {

struct DragonflyShape {
  int groups = 0, chassis = 0, routers = 0, nodes_per_router = 0;

  int nodes_per_group() const { return chassis * routers * nodes_per_router; }
  long capacity() const { return static_cast<long>(groups) * nodes_per_group(); }
};

// The stated groups, or as many as `nodes` fill (positions past the last node are empty ports).
DragonflyShape dragonfly_shape(const DragonflySpec& spec, int nodes);

// Throws InputError naming fabric.groups / fabric.routers_per_chassis when the nodes do not fit,
// or when SimGrid could not route the groups (it attaches group g to router g of chassis 0).
void validate_dragonfly(const std::string& file, const DragonflySpec& spec, int nodes);

// The worst cut into halves: between halves of the groups (blue links), else of one group's
// chassis (black links), else of one chassis's routers (green links), never above half the nodes'
// links. `node_Bps`: a node's link (rails x rail); a link count k carries k x node_Bps (k cables
// in each rail's plane).
double dragonfly_bisection_Bps(const DragonflySpec& spec, int nodes, double node_Bps);

}  // namespace dasim::platform
