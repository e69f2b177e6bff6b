#include "platform/platform_spec.hpp"

namespace dasim::platform {

std::string to_string(FabricTopology topology) {
  return std::string(kFabricTopologyNames.name(topology));
}

std::string to_string(Sharing sharing) {
  return std::string(kSharingNames.name(sharing));
}

}  // namespace dasim::platform
