#include "platform/platform_spec.hpp"

#include <algorithm>

namespace dasim::platform {

double LinkSpec::achieved_Bps() const {
  double achieved = bandwidth_Bps * efficiency_used();
  if (tcp && tcp->socket_bandwidth_Bps > 0)
    achieved = std::min(achieved, tcp->sockets * tcp->socket_bandwidth_Bps);
  return achieved;
}

std::string to_string(FabricTopology topology) {
  return std::string(kFabricTopologyNames.name(topology));
}

std::string to_string(Sharing sharing) {
  return std::string(kSharingNames.name(sharing));
}

}  // namespace dasim::platform
