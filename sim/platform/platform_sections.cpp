#include "platform/platform_sections.hpp"

#include "common/errors.hpp"
#include "platform/link_presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace dasim::platform {

LinkSpec read_link(ObjectReader link, Transport default_transport) {
  LinkSpec spec;
  auto preset_name = link.optional_string("preset");
  std::optional<LinkPreset> preset;
  if (preset_name) {
    preset = find_link_preset(*preset_name);
    if (!preset) {
      std::vector<std::string> names;
      for (const auto& p : link_presets()) names.push_back(p.name);
      link.fail("preset",
                fmt::format("unknown link preset \"{}\" (known: {})", *preset_name, fmt::join(names, ", ")));
    }
  }
  auto bandwidth = link.optional_bandwidth_Bps("bandwidth");
  auto latency = link.optional_time_s("latency");
  if (!bandwidth && !preset)
    link.fail("bandwidth", "required key is missing (give \"bandwidth\" or a \"preset\")");
  if (!latency && !preset) link.fail("latency", "required key is missing (give \"latency\" or a \"preset\")");
  spec.bandwidth_Bps = bandwidth ? *bandwidth : preset->bandwidth_Bps;
  spec.latency_s = latency ? *latency : preset->latency_s;
  auto sharing = link.optional_enumeration("sharing", kSharingNames);
  spec.sharing = sharing.value_or(Sharing::split_duplex);
  spec.transport = link.optional_enumeration("transport", kTransportNames)
                       .value_or(preset ? preset->transport : default_transport);
  if (auto efficiency = link.optional_number("efficiency")) {
    if (!(*efficiency > 0 && *efficiency <= 1))
      link.fail("efficiency",
                fmt::format("expected a fraction of the line rate in (0, 1], got {}", *efficiency));
    spec.efficiency = *efficiency;
  }
  if (link.has("tcp")) {
    if (spec.transport != Transport::tcp)
      link.fail("tcp", fmt::format("socket settings need \"transport\": \"tcp\", not \"{}\"",
                                   to_string(spec.transport)));
    ObjectReader tcp = link.object("tcp");
    TcpSpec t;
    if (auto sockets = tcp.optional_positive_integer("sockets")) {
      if (*sockets > 64 * 64) tcp.fail("sockets", fmt::format("expected 1..4096 sockets, got {}", *sockets));
      t.sockets = static_cast<int>(*sockets);
    }
    t.socket_bandwidth_Bps = tcp.optional_bandwidth_Bps("socket_bandwidth").value_or(0);
    tcp.finish();
    spec.tcp = t;
  }
  link.finish();
  return spec;
}

std::vector<int> read_gpu_list(ObjectReader& reader, const std::string& key, int gpus_per_node) {
  std::vector<int> gpus;
  reader.array(key, [&](const nlohmann::json& v, const std::string& path) {
    int64_t g = json_integer(v, reader.file(), path);
    if (g < 0 || g >= gpus_per_node)
      throw InputError(reader.file(), path,
                       fmt::format("GPU index {} out of range 0..{}", g, gpus_per_node - 1));
    gpus.push_back(static_cast<int>(g));
  });
  return gpus;
}

PcieSpec read_pcie(ObjectReader pcie, int gpus_per_node) {
  PcieSpec spec;
  spec.gpu_link = read_link(pcie.object("gpu_link"), Transport::pcie);
  spec.switch_uplink = read_link(pcie.object("switch_uplink"), Transport::pcie);
  if (pcie.has("inter_socket")) spec.inter_socket = read_link(pcie.object("inter_socket"), Transport::ideal);
  std::map<int, std::string> owner;
  std::set<std::string> names;
  pcie.array("switches", [&](const nlohmann::json& v, const std::string& path) {
    ObjectReader sw(v, pcie.file(), path);
    PcieSwitchSpec s;
    s.name = sw.string("name");
    if (!names.insert(s.name).second)
      sw.fail("name", fmt::format("duplicate PCIe switch name \"{}\"", s.name));
    auto socket = sw.integer("socket");
    if (socket < 0 || socket > 1) sw.fail("socket", "expected socket 0 or 1");
    s.socket = static_cast<int>(socket);
    s.gpus = read_gpu_list(sw, "gpus", gpus_per_node);
    for (int g : s.gpus)
      if (!owner.emplace(g, s.name).second)
        sw.fail("gpus", fmt::format("GPU {} is already under PCIe switch \"{}\"", g, owner[g]));
    sw.finish();
    spec.switches.push_back(std::move(s));
  });
  if (spec.switches.empty()) pcie.fail("switches", "expected at least one PCIe switch");
  for (int g = 0; g < gpus_per_node; ++g)
    if (!owner.count(g)) pcie.fail("switches", fmt::format("GPU {} is under no PCIe switch", g));
  bool two_sockets =
      std::any_of(spec.switches.begin(), spec.switches.end(), [](auto& s) { return s.socket == 1; });
  if (two_sockets && !spec.inter_socket)
    pcie.fail("inter_socket", "required when switches sit on two sockets (QPI/UPI/xGMI link)");
  pcie.finish();
  return spec;
}

NvlinkSpec read_nvlink(ObjectReader nvlink, int gpus_per_node) {
  NvlinkSpec spec;
  spec.link = read_link(nvlink.object("link"), Transport::nvlink);
  std::set<std::pair<int, int>> seen;
  nvlink.array("pairs", [&](const nlohmann::json& v, const std::string& path) {
    if (!v.is_array() || v.size() != 3)
      throw InputError(nvlink.file(), path, "expected [gpu_a, gpu_b, link_count]");
    NvlinkPair p;
    p.a = static_cast<int>(json_integer(v[0], nvlink.file(), path + "[0]"));
    p.b = static_cast<int>(json_integer(v[1], nvlink.file(), path + "[1]"));
    p.links = static_cast<int>(json_integer(v[2], nvlink.file(), path + "[2]"));
    for (int g : {p.a, p.b})
      if (g < 0 || g >= gpus_per_node)
        throw InputError(nvlink.file(), path,
                         fmt::format("GPU index {} out of range 0..{}", g, gpus_per_node - 1));
    if (p.a == p.b) throw InputError(nvlink.file(), path, "an NVLink pair needs two different GPUs");
    if (p.links <= 0) throw InputError(nvlink.file(), path + "[2]", "expected a positive link count");
    if (p.a > p.b) std::swap(p.a, p.b);
    if (!seen.insert({p.a, p.b}).second)
      throw InputError(nvlink.file(), path, fmt::format("pair {}-{} listed twice", p.a, p.b));
    spec.pairs.push_back(p);
  });
  nvlink.finish();
  return spec;
}

namespace {

// Leaves sized in nodes ("switch_radix") or in the ports of one leaf switch ("leaf_ports"): a
// single-plane leaf takes all of a node's rails, a rail-optimised fabric has one leaf per rail
// taking one port of each node, so its leaves (the node's rails aggregated) hold leaf_ports nodes.
void read_fat_tree(ObjectReader& fabric, int rails, FabricSpec& spec) {
  const bool by_ports = fabric.has("leaf_ports");
  if (by_ports && fabric.has("switch_radix"))
    fabric.fail("leaf_ports",
                "give switch_radix (nodes per leaf) or leaf_ports (ports per leaf switch), not both");
  if (by_ports) {
    spec.leaf_ports = static_cast<int>(fabric.integer_in("leaf_ports", 1, 1 << 16));
    spec.rail_optimised = fabric.optional_boolean("rail_optimised").value_or(false);
    if (!spec.rail_optimised && spec.leaf_ports % rails != 0)
      fabric.fail("leaf_ports",
                  fmt::format("a single-plane leaf takes all {} ports of a node: {} ports is not a "
                              "whole number of nodes (or set \"rail_optimised\": true)",
                              rails, spec.leaf_ports));
    spec.switch_radix = spec.rail_optimised ? spec.leaf_ports : spec.leaf_ports / rails;
  } else {
    if (fabric.has("rail_optimised"))
      fabric.fail("rail_optimised", "needs \"leaf_ports\" (switch_radix already counts nodes per leaf)");
    spec.switch_radix = static_cast<int>(fabric.positive_integer("switch_radix"));
  }
  spec.oversubscription = fabric.optional_number("oversubscription").value_or(1.0);
  if (spec.oversubscription < 1.0)
    fabric.fail("oversubscription", "expected a ratio >= 1 (downlink : uplink)");
  double uplinks = spec.switch_radix / spec.oversubscription;
  if (uplinks < 1.0 || std::abs(uplinks - std::round(uplinks)) > 1e-9)
    fabric.fail("oversubscription",
                fmt::format("{} nodes per leaf / oversubscription = {} must be a whole number of uplinks",
                            spec.switch_radix, uplinks));
}

void read_torus(ObjectReader& fabric, FabricSpec& spec) {
  const auto& dims = fabric.raw("dimensions");
  if (dims.is_array()) {
    fabric.array("dimensions", [&](const nlohmann::json& v, const std::string& path) {
      auto d = json_integer(v, fabric.file(), path);
      if (d <= 0) throw InputError(fabric.file(), path, "expected a positive torus dimension");
      spec.torus_dimensions.push_back(static_cast<int>(d));
    });
    if (spec.torus_dimensions.empty()) fabric.fail("dimensions", "expected at least one dimension");
  } else {
    auto rank = fabric.integer("dimensions");
    if (rank < 1 || rank > 3) fabric.fail("dimensions", "expected 1, 2 or 3, or an explicit list of sizes");
    spec.torus_rank = static_cast<int>(rank);
  }
}

// Each count in 1..1024: far beyond any real dragonfly, small enough that products stay exact.
void read_dragonfly(ObjectReader& fabric, DragonflySpec& spec) {
  auto count = [&](const char* key, int fallback) {
    return static_cast<int>(fabric.optional_integer_in(key, 1, 1024).value_or(fallback));
  };
  spec.groups = count("groups", 0);
  spec.chassis_per_group = count("chassis_per_group", 1);
  spec.routers_per_chassis = static_cast<int>(fabric.integer_in("routers_per_chassis", 1, 1024));
  spec.nodes_per_router = static_cast<int>(fabric.integer_in("nodes_per_router", 1, 1024));
  spec.links_between_groups = count("links_between_groups", 1);
  spec.links_between_chassis = count("links_between_chassis", 1);
  spec.links_between_routers = count("links_between_routers", 1);
}

}  // namespace

FabricSpec read_fabric(ObjectReader fabric, int rails) {
  FabricSpec spec;
  spec.topology = fabric.enumeration("topology", kFabricTopologyNames);
  spec.link = read_link(fabric.object("link"), Transport::ideal);
  if (spec.topology == FabricTopology::fat_tree) read_fat_tree(fabric, rails, spec);
  if (spec.topology == FabricTopology::torus) read_torus(fabric, spec);
  if (spec.topology == FabricTopology::dragonfly) read_dragonfly(fabric, spec.dragonfly);
  fabric.finish();
  return spec;
}

GpuSpec read_gpu(ObjectReader gpu, const std::string& platform_file) {
  GpuSpec spec;
  spec.model = gpu.string("model");
  spec.generation =
      gpu.optional_enumeration("generation", kGpuGenerationNames).value_or(generation_of_model(spec.model));
  spec.speed_flops = gpu.flops("speed");
  if (auto calibration = gpu.optional_string("calibration")) {
    std::filesystem::path p(*calibration);  // relative to the platform file
    if (p.is_relative()) p = std::filesystem::path(platform_file).parent_path() / p;
    spec.calibration = p.lexically_normal().string();
  }
  gpu.finish();
  return spec;
}

std::vector<NicSpec> read_nics(ObjectReader& node, int gpus_per_node) {
  std::vector<NicSpec> nics;
  std::set<std::string> nic_names;
  node.array("nics", [&](const nlohmann::json& v, const std::string& path) {
    ObjectReader nic(v, node.file(), path);
    NicSpec n;
    n.name = nic.string("name");
    if (!nic_names.insert(n.name).second) nic.fail("name", fmt::format("duplicate NIC name \"{}\"", n.name));
    n.pcie_switch = nic.optional_string("pcie_switch").value_or("");
    n.link = read_link(nic.object("link"), Transport::ideal);
    if (nic.has("gpus")) {
      n.gpus = read_gpu_list(nic, "gpus", gpus_per_node);
    } else {
      nic.fail("gpus", "required key is missing (list the GPUs whose traffic uses this NIC)");
    }
    nic.finish();
    nics.push_back(std::move(n));
  });
  return nics;
}

NvswitchSpec read_nvswitch(ObjectReader nvswitch) {
  NvswitchSpec spec{read_link(nvswitch.object("port"), Transport::nvlink), std::nullopt};
  if (nvswitch.has("nvls")) {
    const auto& value = nvswitch.raw("nvls");
    if (value.is_boolean()) {
      const auto* facts = nvls_facts(spec.port.transport);
      if (value.get<bool>() && !facts)
        nvswitch.fail("nvls",
                      fmt::format("NVLink SHARP needs NVSwitch ports of transport nvlink4 (Hopper) or "
                                  "nvlink5 (Blackwell), got {}; or state \"nvls\": {{\"efficiency\": e}}",
                                  to_string(spec.port.transport)));
      if (value.get<bool>()) spec.nvls_efficiency = facts->efficiency;
    } else {
      ObjectReader nvls = nvswitch.object("nvls");
      const double e = nvls.number("efficiency");
      if (!(e > 0 && e <= 1))
        nvls.fail("efficiency",
                  fmt::format("expected a fraction of the port's achieved rate in (0, 1], got {}", e));
      spec.nvls_efficiency = e;
      nvls.finish();
    }
  }
  nvswitch.finish();
  return spec;
}

NetworkModelSpec read_network(ObjectReader network) {
  NetworkModelSpec spec;
  spec.model = network.optional_choice("model", {"CM02", "LV08"}).value_or("CM02");
  spec.crosstraffic = network.optional_boolean("crosstraffic").value_or(false);
  network.finish();
  return spec;
}

}  // namespace dasim::platform
