#include "platform/platform_summary.hpp"

#include "common/units.hpp"
#include "engine/simulation.hpp"
#include "platform/link_presets.hpp"
#include "platform/node_routes.hpp"
#include "platform/platform_loader.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <limits>
#include <map>

namespace dasim::platform {
namespace {

struct MeasuredRoute {
  double bandwidth_Bps = std::numeric_limits<double>::infinity();
  double latency_s = 0;
  size_t hops = 0;
};

MeasuredRoute simgrid_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  std::vector<simgrid::s4u::Link*> links;
  MeasuredRoute r;
  from->route_to(to, links, &r.latency_s);
  for (auto* l : links) r.bandwidth_Bps = std::min(r.bandwidth_Bps, l->get_bandwidth());
  r.hops = links.size();
  return r;
}

const char* class_name(LinkClass c) {
  switch (c) {
    case LinkClass::pcie_gpu: return "PCIe GPU<->switch";
    case LinkClass::pcie_uplink: return "PCIe switch uplink";
    case LinkClass::inter_socket: return "inter-socket";
    case LinkClass::nvlink: return "NVLink pair";
    case LinkClass::nvswitch_port: return "NVSwitch port";
    case LinkClass::nic: return "NIC";
  }
  return "?";
}

std::string fabric_description(const PlatformSpec& spec) {
  const auto& f = spec.fabric;
  std::string text;
  switch (f.topology) {
    case FabricTopology::star: text = fmt::format("star: one non-blocking switch, {} ports", spec.nodes); break;
    case FabricTopology::fat_tree: {
      if (spec.nodes <= f.switch_radix) {
        text = fmt::format("fat-tree, 1 level: one switch with {} node ports", spec.nodes);
      } else {
        int leaves = (spec.nodes + f.switch_radix - 1) / f.switch_radix;
        int spines = static_cast<int>(std::lround(f.switch_radix / f.oversubscription));
        text = fmt::format("fat-tree, 2 levels: {} leaf switches x {} node ports, {} spines, oversubscription {}:1",
                           leaves, f.switch_radix, spines, f.oversubscription);
      }
      break;
    }
    case FabricTopology::torus:
      text = fmt::format("torus {}", fmt::join(torus_dimensions(f, spec.nodes), "x"));
      break;
  }
  return text;
}

}  // namespace

double bisection_bandwidth_Bps(const PlatformSpec& spec) {
  const double node_Bps = spec.fabric.link.bandwidth_Bps * spec.rails();
  const int half = spec.nodes / 2;
  if (spec.nodes < 2) return 0;
  switch (spec.fabric.topology) {
    case FabricTopology::star: return half * node_Bps;
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
  }
  return 0;
}

std::string connection_label(const PlatformSpec& spec, int a, int b) {
  if (a == b) return "X";
  auto route = gpu_to_gpu_route(spec, a, b);
  if (route.front().cls == LinkClass::nvswitch_port) return "NVS";
  if (route.front().cls == LinkClass::nvlink) {
    for (const auto& p : spec.nvlink->pairs)
      if (p.a == std::min(a, b) && p.b == std::max(a, b)) return fmt::format("NV{}", p.links);
  }
  bool sys = std::any_of(route.begin(), route.end(), [](auto& r) { return r.cls == LinkClass::inter_socket; });
  if (sys) return "SYS";
  return route.size() == 2 ? "PIX" : "NODE";
}

std::string render_platform_summary(const PlatformSpec& spec) {
  engine::Simulation sim(spec);
  const auto& gpus = sim.platform().gpus;
  const int g = spec.gpus_per_node;
  std::string out;
  out += fmt::format("Platform {} ({})\n", spec.name, spec.file);
  if (!spec.description.empty()) out += fmt::format("  {}\n", spec.description);
  out += fmt::format("Nodes:      {} x {} GPUs ({}, {}) = {} GPUs\n", spec.nodes, g, spec.gpu.model,
                     units::format_flops(spec.gpu.speed_flops), spec.total_gpus());
  if (!spec.gpu.calibration.empty()) out += fmt::format("Calibration: {}\n", spec.gpu.calibration);
  out += fmt::format("Network:    {}\n", sim.platform().network_model_note);

  // Links of one node by kind, read from the routes the node really uses.
  std::map<std::string, std::pair<int, LinkSpec>> kinds;
  std::map<std::string, bool> seen;
  auto collect = [&](const std::vector<NodeLinkRef>& route) {
    for (const auto& ref : route) {
      if (seen[ref.name]) continue;
      seen[ref.name] = true;
      LinkSpec l = node_link_spec(spec, ref);
      std::string key = fmt::format("{} {} {}", class_name(ref.cls), units::format_bandwidth(l.bandwidth_Bps),
                                    units::format_time(l.latency_s));
      auto& entry = kinds.try_emplace(key, 0, l).first->second;
      ++entry.first;
    }
  };
  for (int a = 0; a < g; ++a) {
    for (int b = a + 1; b < g; ++b) collect(gpu_to_gpu_route(spec, a, b));
    collect(gpu_to_nic_route(spec, a));
  }
  out += "Links per node (kind, bandwidth per direction, latency: count):\n";
  for (const auto& [key, entry] : kinds)
    out += fmt::format("  {:<44} x{} ({})\n", key, entry.first, to_string(entry.second.sharing));
  out += fmt::format("Fabric:     {}\n", fabric_description(spec));
  out += fmt::format("            per-node link {} rail(s) x {} = {}, latency {} per hop\n", spec.rails(),
                     units::format_bandwidth(spec.fabric.link.bandwidth_Bps),
                     units::format_bandwidth(spec.fabric.link.bandwidth_Bps * spec.rails()),
                     units::format_time(spec.fabric.link.latency_s));
  out += fmt::format("Bisection:  {}\n", units::format_bandwidth(bisection_bandwidth_Bps(spec)));

  if (g > 1) {
    out += "\nGPU-to-GPU inside node 0 (connection, route bottleneck GB/s, latency us):\n";
    out += fmt::format("{:>6}", "");
    for (int b = 0; b < g; ++b) out += fmt::format("{:>18}", fmt::format("GPU{}", b));
    out += "\n";
    for (int a = 0; a < g; ++a) {
      out += fmt::format("{:>6}", fmt::format("GPU{}", a));
      for (int b = 0; b < g; ++b) {
        if (a == b) {
          out += fmt::format("{:>18}", "X");
          continue;
        }
        auto r = simgrid_route(gpus[a], gpus[b]);
        out += fmt::format("{:>18}", fmt::format("{} {:.1f} {:.2f}", connection_label(spec, a, b),
                                                 r.bandwidth_Bps / 1e9, r.latency_s * 1e6));
      }
      out += "\n";
    }
    out += "  Legend: NV<k> = k NVLinks, NVS = NVSwitch, PIX = same PCIe switch, NODE = PCIe via the root\n"
           "  complex, SYS = PCIe across the inter-socket link.\n";
  }
  if (spec.nodes > 1) {
    out += "\nInter-node paths (GPU of node 0 -> same GPU of the farthest node):\n";
    for (int a = 0; a < g; ++a) {
      auto r = simgrid_route(gpus[a], gpus[(spec.nodes - 1) * g + a]);
      out += fmt::format("  GPU{} -> n{}g{}: {} links, bottleneck {}, latency {} (NIC {})\n", a, spec.nodes - 1, a,
                         r.hops, units::format_bandwidth(r.bandwidth_Bps), units::format_time(r.latency_s),
                         spec.nics[nic_of_gpu(spec, a)].name);
    }
  }
  return out;
}

}  // namespace dasim::platform
