#include "platform/platform_variants.hpp"

#include "common/errors.hpp"
#include "platform/node_routes.hpp"
#include "platform/platform_loader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::platform {

PlatformSpec gpu_peers(const PlatformSpec& spec, int nodes, int gpu) {
  PlatformSpec peers = spec;
  peers.nodes = nodes;
  peers.gpus_per_node = 1;
  peers.nvlink.reset();
  peers.nvswitch.reset();
  peers.site_platforms.clear();  // the GPU of the first site's node type
  peers.sites.sizes.clear();
  NicSpec nic = spec.nics[size_t(nic_of_gpu(spec, gpu))];
  nic.gpus = {0};
  peers.nics = {nic};
  if (peers.pcie) {
    // Keep the GPU's switch (and the NIC's, if elsewhere) so the GPU-to-NIC path is unchanged.
    std::vector<PcieSwitchSpec> kept;
    for (auto sw : spec.pcie->switches) {
      const bool has_gpu = std::find(sw.gpus.begin(), sw.gpus.end(), gpu) != sw.gpus.end();
      if (!has_gpu && sw.name != nic.pcie_switch) continue;
      sw.gpus = has_gpu ? std::vector<int>{0} : std::vector<int>{};
      kept.push_back(sw);
    }
    peers.pcie->switches = kept;
  }
  return peers;
}

PlatformSpec single_gpu(const PlatformSpec& spec) {
  PlatformSpec one = gpu_peers(spec, 1, 0);
  // An explicit torus shape describes the full cluster; the baseline's one node is a 1-torus.
  if (!one.fabric.torus_dimensions.empty()) one.fabric.torus_dimensions = {1};
  one.sites.count = 1;  // one GPU is in one site
  validate_platform(one);
  return one;
}

const std::vector<std::string>& sweep_parameters() {
  static const std::vector<std::string> names{
      "inter_node_bandwidth", "nic_bandwidth",  "fabric_bandwidth", "nvlink_bandwidth",
      "nvswitch_bandwidth",   "pcie_bandwidth", "fabric_latency",   "nic_latency",
      "oversubscription",     "wan_bandwidth",  "wan_latency"};
  return names;
}

std::string sweep_parameter_unit(const std::string& parameter) {
  if (parameter.ends_with("_bandwidth")) return "bandwidth";
  if (parameter.ends_with("_latency")) return "time";
  if (parameter == "oversubscription") return "number";
  return "";
}

std::string sweep_column(const std::string& parameter) {
  std::string unit = sweep_parameter_unit(parameter);
  return parameter + (unit == "bandwidth" ? "_Bps" : unit == "time" ? "_s" : "");
}

void apply_sweep(PlatformSpec& spec, const std::string& parameter, double value) {
  auto missing = [&](const char* part) {
    throw InputError(spec.file, "", fmt::format("cannot sweep {}: the platform has no {}", parameter, part));
  };
  // Mixed sites: a node or fabric parameter is every site's (the WAN is the platform's own).
  if (parameter != "wan_bandwidth" && parameter != "wan_latency")
    for (auto& site : spec.site_platforms) apply_sweep(site, parameter, value);
  if (parameter == "inter_node_bandwidth" || parameter == "nic_bandwidth")
    for (auto& nic : spec.nics) nic.link.bandwidth_Bps = value;
  if (parameter == "inter_node_bandwidth" || parameter == "fabric_bandwidth")
    spec.fabric.link.bandwidth_Bps = value;
  if (parameter == "nvlink_bandwidth") {
    if (!spec.nvlink) missing("nvlink section");
    spec.nvlink->link.bandwidth_Bps = value;
  }
  if (parameter == "nvswitch_bandwidth") {
    if (!spec.nvswitch) missing("nvswitch section");
    spec.nvswitch->port.bandwidth_Bps = value;
  }
  if (parameter == "pcie_bandwidth") {
    if (!spec.pcie) missing("pcie section");
    spec.pcie->gpu_link.bandwidth_Bps = value;
    spec.pcie->switch_uplink.bandwidth_Bps = value;
  }
  if (parameter == "fabric_latency") spec.fabric.link.latency_s = value;
  if (parameter == "nic_latency")
    for (auto& nic : spec.nics) nic.link.latency_s = value;
  if (parameter == "wan_bandwidth" || parameter == "wan_latency") {
    if (spec.sites.count < 2) missing("sites (a WAN needs at least 2)");
    (parameter == "wan_bandwidth" ? spec.sites.wan.bandwidth_Bps : spec.sites.wan.latency_s) = value;
  }
  if (parameter == "oversubscription") {
    if (spec.fabric.topology != FabricTopology::fat_tree) missing("fat-tree fabric");
    spec.fabric.oversubscription = value;
  }
  validate_platform(spec);
}

}  // namespace dasim::platform
