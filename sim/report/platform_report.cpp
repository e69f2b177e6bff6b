#include "report/platform_report.hpp"

#include "collectives/ring_order.hpp"
#include "common/units.hpp"
#include "platform/bisection.hpp"
#include "platform/dragonfly.hpp"
#include "platform/link_presets.hpp"
#include "platform/network_model.hpp"
#include "platform/node_routes.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/simulation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>

namespace dasim::report {
namespace {

using namespace platform;

const char* class_name(LinkClass c) {
  switch (c) {
    case LinkClass::pcie_gpu:
      return "PCIe GPU<->switch";
    case LinkClass::pcie_uplink:
      return "PCIe switch uplink";
    case LinkClass::inter_socket:
      return "inter-socket";
    case LinkClass::nvlink:
      return "NVLink pair";
    case LinkClass::nvswitch_port:
      return "NVSwitch port";
    case LinkClass::nic:
      return "NIC";
  }
  return "?";
}

std::string fabric_description(const PlatformSpec& spec) {
  const auto& f = spec.fabric;
  std::string text;
  switch (f.topology) {
    case FabricTopology::star:
      text = fmt::format("star: one non-blocking switch, {} ports", spec.nodes);
      break;
    case FabricTopology::fat_tree: {
      if (spec.nodes <= f.switch_radix) {
        text = fmt::format("fat-tree, 1 level: one switch with {} node ports", spec.nodes);
      } else {
        int leaves = (spec.nodes + f.switch_radix - 1) / f.switch_radix;
        int spines = static_cast<int>(std::lround(f.switch_radix / f.oversubscription));
        // Rails aggregated: a "leaf" is the group of switches that holds a node's rails (one switch
        // per rail when rail-optimised).
        text = fmt::format("fat-tree, 2 levels: {} leaf {} x {} nodes, {} spines, oversubscription {}:1",
                           leaves, f.rail_optimised ? "groups (one switch per rail)" : "switches",
                           f.switch_radix, spines, f.oversubscription);
      }
      break;
    }
    case FabricTopology::torus:
      text = fmt::format("torus {}", fmt::join(torus_dimensions(f, spec.nodes), "x"));
      break;
    case FabricTopology::dragonfly: {
      const auto& d = f.dragonfly;
      const auto shape = dragonfly_shape(d, spec.nodes);  // groups resolved when the file leaves them out
      text = fmt::format(
          "dragonfly: {} groups x {} chassis x {} routers x {} nodes per router; cables of one rail between "
          "groups {}, chassis {}, routers {}",
          shape.groups, shape.chassis, shape.routers, shape.nodes_per_router, d.links_between_groups,
          d.links_between_chassis, d.links_between_routers);
      break;
    }
  }
  return text;
}

// Links of one node by kind, read from the routes the node really uses.
std::string links_section(const PlatformSpec& spec) {
  std::map<std::string, std::pair<int, LinkSpec>> kinds;
  std::map<std::string, bool> seen;
  auto collect = [&](const std::vector<NodeLinkRef>& route) {
    for (const auto& ref : route) {
      if (seen[ref.name]) continue;
      seen[ref.name] = true;
      LinkSpec l = node_link_spec(spec, ref);
      std::string key = fmt::format("{} {} {}, achieved {} ({} x {:.3g})", class_name(ref.cls),
                                    units::format_bandwidth(l.bandwidth_Bps), units::format_time(l.latency_s),
                                    units::format_bandwidth(l.achieved_Bps()), to_string(l.transport),
                                    l.achieved_Bps() / l.bandwidth_Bps);
      auto& entry = kinds.try_emplace(key, 0, l).first->second;
      ++entry.first;
    }
  };
  for (int a = 0; a < spec.gpus_per_node; ++a) {
    for (int b = a + 1; b < spec.gpus_per_node; ++b) collect(gpu_to_gpu_route(spec, a, b));
    collect(gpu_to_nic_route(spec, a));
  }
  std::string out =
      "Links per node (kind, line rate per direction, latency, achieved rate (transport x efficiency): "
      "count):\n";
  for (const auto& [key, entry] : kinds)
    out += fmt::format("  {:<76} x{} ({})\n", key, entry.first, to_string(entry.second.sharing));
  if (spec.nvswitch && spec.nvswitch->nvls_efficiency)
    out += fmt::format(
        "  NVLink SHARP (NVLS): the switch reduces; multimem at {} per port ({:.3g} of the achieved rate)\n",
        units::format_bandwidth(spec.nvswitch->port.achieved_Bps() * *spec.nvswitch->nvls_efficiency),
        *spec.nvswitch->nvls_efficiency);
  return out;
}

std::string pair_label(const PlatformSpec& spec, const ProbedRoutes& routes, int a, int b) {
  const auto& r = routes.inside_node[size_t(a)][size_t(b)];
  return fmt::format("{} {:.1f} {:.2f}", connection_label(spec, a, b), r.bandwidth_Bps / 1e9,
                     r.latency_s * 1e6);
}

// Beyond 16 GPUs a node (NVL72) the matrix is unreadable: each distinct kind of pair, counted.
constexpr int kMatrixMaxGpus = 16;

std::string gpu_pair_kinds_section(const PlatformSpec& spec, const ProbedRoutes& routes) {
  const int g = spec.gpus_per_node;
  std::map<std::string, std::pair<int, std::string>> kinds;  // label -> (count, first pair)
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b)
      if (a != b) {
        auto& [count, first] = kinds[pair_label(spec, routes, a, b)];
        if (count++ == 0) first = fmt::format("GPU{} -> GPU{}", a, b);
      }
  std::string out = fmt::format(
      "\nGPU-to-GPU inside node 0, {} ordered pairs by kind (connection, route bottleneck GB/s, latency "
      "us):\n",
      g * (g - 1));
  for (const auto& [label, entry] : kinds)
    out += fmt::format("  {:<24} x{} (e.g. {})\n", label, entry.first, entry.second);
  return out;
}

std::string gpu_matrix_section(const PlatformSpec& spec, const ProbedRoutes& routes) {
  const int g = spec.gpus_per_node;
  if (g > kMatrixMaxGpus) return gpu_pair_kinds_section(spec, routes);
  std::string out = "\nGPU-to-GPU inside node 0 (connection, route bottleneck GB/s, latency us):\n";
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
      out += fmt::format("{:>18}", pair_label(spec, routes, a, b));
    }
    out += "\n";
  }
  return out +
         "  Legend: NV<k> = k NVLinks, NVS = NVSwitch, PIX = same PCIe switch, NODE = PCIe via the root\n"
         "  complex, SYS = PCIe across the inter-socket link.\n";
}

std::string inter_node_section(const PlatformSpec& spec, const ProbedRoutes& routes) {
  std::string out = "\nInter-node paths (GPU of node 0 -> same GPU of the farthest node):\n";
  const int shown = std::min(spec.gpus_per_node, kMatrixMaxGpus);
  for (int a = 0; a < shown; ++a) {
    const auto& r = routes.across_fabric[size_t(a)];
    out += fmt::format("  GPU{} -> n{}g{}: {} links, bottleneck {}, latency {} (NIC {})\n", a, spec.nodes - 1,
                       a, r.hops, units::format_bandwidth(r.bandwidth_Bps), units::format_time(r.latency_s),
                       spec.nics[nic_of_gpu(spec, a)].name);
  }
  if (shown < spec.gpus_per_node)
    out += fmt::format("  (GPU{}..GPU{} not shown)\n", shown, spec.gpus_per_node - 1);
  return out;
}

// The rings a collective runs side by side inside one node (collectives::intra_node_rings): on a
// point-to-point NVLink mesh several over different links, elsewhere one.
std::string rings_line(const PlatformSpec& spec) {
  if (spec.gpus_per_node < 2) return "";
  const auto rings = collectives::intra_node_rings(spec);
  std::vector<std::string> cycles;
  for (const auto& cycle : rings.cycles) cycles.push_back(fmt::format("{}", fmt::join(cycle, "-")));
  if (rings.beats_one_ring)
    return fmt::format(
        "Rings:      {} inside a node over different links, {} each, {} of bus bandwidth together ({})\n",
        rings.cycles.size(), units::format_bandwidth(rings.aggregate_Bps / double(rings.cycles.size())),
        units::format_bandwidth(rings.aggregate_Bps), fmt::join(cycles, ", "));
  return fmt::format("Rings:      one inside a node ({}), {} of bus bandwidth; more would share its links\n",
                     cycles.front(), units::format_bandwidth(rings.aggregate_Bps));
}

}  // namespace

std::string render_platform_summary(const PlatformSpec& spec, const ProbedRoutes& routes) {
  std::string out;
  out += fmt::format("Platform {} ({})\n", spec.name, spec.file);
  if (!spec.description.empty()) out += fmt::format("  {}\n", spec.description);
  out +=
      fmt::format("Nodes:      {} x {} ({}, {}) = {}\n", units::format_count(spec.nodes, "node"),
                  units::format_count(spec.gpus_per_node, "GPU"), spec.gpu.model,
                  units::format_flops(spec.gpu.speed_flops), units::format_count(spec.total_gpus(), "GPU"));
  if (!spec.gpu.calibration.empty()) out += fmt::format("Calibration: {}\n", spec.gpu.calibration);
  out += fmt::format("NCCL tuner: GPU generation {}, {} CPU hosts (its ceiling on LL's bandwidth)\n",
                     to_string(spec.gpu.generation), to_string(spec.cpu_vendor));
  out += fmt::format("Network:    {}\n", describe_network_model(spec.network));
  out += links_section(spec);
  out += rings_line(spec);
  PlatformSpec site = spec;  // the fabric of one site (all nodes when there is one)
  if (spec.sites.count > 1) {
    site.nodes = spec.site_nodes(0);
    std::vector<int> sizes;
    for (int s = 0; s < spec.sites.count; ++s) sizes.push_back(spec.site_nodes(s));
    out += fmt::format(
        "Sites:      {} datacenters of {} nodes; between two sites the WAN: {} per direction, {} one way "
        "(each site's uplink {} and half the latency)\n",
        spec.sites.count,
        spec.sites.sizes.empty() ? fmt::format("{}", site.nodes) : fmt::format("{}", fmt::join(sizes, " + ")),
        units::format_bandwidth(spec.sites.wan.achieved_Bps()), units::format_time(spec.sites.wan.latency_s),
        units::format_bandwidth(spec.sites.wan.achieved_Bps()));
    // Mixed sites: each site's node type; the sections above and below are the first site's.
    for (size_t s = 0; s < spec.site_platforms.size(); ++s) {
      const auto& own = spec.site_platforms[s];
      out +=
          fmt::format("  site {}:   {} ({}): {} x {} ({}); fabric {}; calibration {}\n", s, own.name,
                      own.file, units::format_count(own.gpus_per_node, "GPU"), own.gpu.model,
                      units::format_flops(own.gpu.speed_flops), fabric_description(own), own.gpu.calibration);
    }
    if (spec.mixed_sites()) out += "            (the node, links and fabric shown here are site 0's)\n";
  }
  out +=
      fmt::format("Fabric:     {}{}\n", fabric_description(site), spec.sites.count > 1 ? " (per site)" : "");
  out += fmt::format(
      "            per-node link {} rail(s) x {} = {} line rate, {} achieved, latency {} per hop\n",
      spec.rails(), units::format_bandwidth(spec.fabric.link.bandwidth_Bps),
      units::format_bandwidth(spec.fabric.link.bandwidth_Bps * spec.rails()),
      units::format_bandwidth(spec.fabric.link.achieved_Bps() * spec.rails()),
      units::format_time(spec.fabric.link.latency_s));
  out += fmt::format("Bisection:  {} line rate\n", units::format_bandwidth(bisection_bandwidth_Bps(spec)));
  if (spec.gpus_per_node > 1) out += gpu_matrix_section(spec, routes);
  if (spec.nodes > 1) out += inter_node_section(spec, routes);
  return out;
}

std::string simulate_platform_summary(const PlatformSpec& spec) {
  runtime::Simulation sim(spec);
  return render_platform_summary(spec, probe_routes(spec, sim.platform()));
}

}  // namespace dasim::report
