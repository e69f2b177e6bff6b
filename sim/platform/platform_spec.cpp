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

int64_t SitesSpec::total_size() const {
  int64_t total = 0;
  for (int size : sizes) total += size;
  return total;
}

namespace {

// Nodes of a site of `size` among sites of `total` size: its share of `nodes`.
int share_of(int nodes, int size, int64_t total) {
  return static_cast<int>(int64_t{nodes} * size / total);
}

}  // namespace

int PlatformSpec::site_nodes(int site) const {
  if (sites.sizes.empty()) return nodes / sites.count;
  return share_of(nodes, sites.sizes[size_t(site)], sites.total_size());
}

int PlatformSpec::first_node_of_site(int site) const {
  if (sites.sizes.empty()) return site * (nodes / sites.count);
  const int64_t total = sites.total_size();
  int first = 0;
  for (int s = 0; s < site; ++s) first += share_of(nodes, sites.sizes[size_t(s)], total);
  return first;
}

int PlatformSpec::site_of_node(int node) const {
  if (sites.sizes.empty()) return node / (nodes / sites.count);
  const int64_t total = sites.total_size();
  for (int site = 0, end = 0; site < sites.count; ++site)
    if (node < (end += share_of(nodes, sites.sizes[size_t(site)], total))) return site;
  return sites.count - 1;
}

std::string to_string(FabricTopology topology) {
  return std::string(kFabricTopologyNames.name(topology));
}

std::string to_string(Sharing sharing) {
  return std::string(kSharingNames.name(sharing));
}

}  // namespace dasim::platform
