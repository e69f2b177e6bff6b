#include "platform/bisection.hpp"

#include "platform/dragonfly.hpp"
#include "platform/platform_loader.hpp"

#include <algorithm>

namespace dasim::platform {

double bisection_bandwidth_Bps(const PlatformSpec& spec) {
  const double node_Bps = spec.fabric.link.bandwidth_Bps * spec.rails();
  const int half = spec.nodes / 2;
  if (spec.nodes < 2) return 0;
  if (spec.sites.count > 1) {
    // Half the sites on each side of the cut: it crosses their WAN uplinks, each behind the site
    // fabric's port to its border router (a node's link).
    return (spec.sites.count / 2) * std::min(spec.sites.wan.bandwidth_Bps, node_Bps);
  }
  switch (spec.fabric.topology) {
    case FabricTopology::star:
      return half * node_Bps;
    case FabricTopology::fat_tree:
      // Within one switch: non-blocking. Across the spine: uplink capacity is 1/r of the downlinks.
      if (spec.nodes <= spec.fabric.switch_radix) return half * node_Bps;
      return half * node_Bps / spec.fabric.oversubscription;
    case FabricTopology::torus: {
      auto dims = torus_dimensions(spec.fabric, spec.nodes);
      int largest = *std::max_element(dims.begin(), dims.end());
      // Cutting the largest ring in half cuts nodes/largest links, twice with wrap-around.
      int cuts = largest > 2 ? 2 : 1;
      return cuts * (spec.nodes / largest) * node_Bps;
    }
    case FabricTopology::dragonfly:
      return dragonfly_bisection_Bps(spec.fabric.dragonfly, spec.nodes, node_Bps);
  }
  return 0;
}

}  // namespace dasim::platform
