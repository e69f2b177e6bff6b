#include "platform/platform_spec.hpp"

#include <algorithm>
#include <cstdint>

namespace dasim::platform {

double LinkSpec::achieved_Bps() const {
  double achieved = bandwidth_Bps * efficiency_used();
  if (tcp && tcp->socket_bandwidth_Bps > 0)
    achieved = std::min(achieved, tcp->sockets * tcp->socket_bandwidth_Bps);
  return achieved;
}

int PlatformSpec::site_nodes(int site) const {
  if (sites.sizes.empty()) return nodes / sites.count;
  int64_t total = 0;
  for (int size : sites.sizes) total += size;
  return static_cast<int>(int64_t{nodes} * sites.sizes[size_t(site)] / total);
}

int PlatformSpec::first_node_of_site(int site) const {
  int first = 0;
  for (int s = 0; s < site; ++s) first += site_nodes(s);
  return first;
}

int PlatformSpec::site_of_node(int node) const {
  if (sites.sizes.empty()) return node / (nodes / sites.count);
  for (int site = 0, end = 0; site < sites.count; ++site)
    if (node < (end += site_nodes(site))) return site;
  return sites.count - 1;
}

std::string to_string(FabricTopology topology) {
  return std::string(kFabricTopologyNames.name(topology));
}

std::string to_string(Sharing sharing) {
  return std::string(kSharingNames.name(sharing));
}

}  // namespace dasim::platform
