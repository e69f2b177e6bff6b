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

std::string to_string(GpuGeneration generation) {
  return std::string(kGpuGenerationNames.name(generation));
}

std::string to_string(CpuVendor vendor) {
  return std::string(kCpuVendorNames.name(vendor));
}

GpuGeneration generation_of_model(const std::string& model) {
  struct Prefix {
    const char* name;
    GpuGeneration generation;
  };
  // Longest names first, so that "GB200" is not read as a "B200" it merely contains.
  static constexpr Prefix kPrefixes[] = {
      {"GH200", GpuGeneration::hopper},    {"GB200", GpuGeneration::blackwell},
      {"GB300", GpuGeneration::blackwell}, {"P100", GpuGeneration::volta},
      {"V100", GpuGeneration::volta},      {"A100", GpuGeneration::ampere},
      {"A800", GpuGeneration::ampere},     {"H100", GpuGeneration::hopper},
      {"H200", GpuGeneration::hopper},     {"H800", GpuGeneration::hopper},
      {"B100", GpuGeneration::blackwell},  {"B200", GpuGeneration::blackwell},
      {"B300", GpuGeneration::blackwell},
  };
  for (const auto& p : kPrefixes)
    if (model.rfind(p.name, 0) == 0) return p.generation;
  return GpuGeneration::unknown;
}

}  // namespace dasim::platform
