#include "platform/node_routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dasim::platform {
namespace {

int switch_of_gpu(const PcieSpec& pcie, int gpu) {
  for (size_t s = 0; s < pcie.switches.size(); ++s)
    for (int g : pcie.switches[s].gpus)
      if (g == gpu) return static_cast<int>(s);
  throw std::logic_error(fmt::format("GPU {} under no PCIe switch (spec not validated?)", gpu));
}

int switch_index(const PcieSpec& pcie, const std::string& name) {
  for (size_t s = 0; s < pcie.switches.size(); ++s)
    if (pcie.switches[s].name == name) return static_cast<int>(s);
  throw std::logic_error("unknown PCIe switch " + name);
}

// From switch `from` up to its root complex, across sockets if needed, down to switch `to`.
void append_switch_to_switch(const PcieSpec& pcie, int from, int to, std::vector<NodeLinkRef>& route) {
  if (from == to) return;
  const auto& sf = pcie.switches[from];
  const auto& st = pcie.switches[to];
  route.push_back({"pcie-uplink-" + sf.name, LinkClass::pcie_uplink, true});
  if (sf.socket != st.socket)
    route.push_back({"inter-socket", LinkClass::inter_socket, sf.socket < st.socket});
  route.push_back({"pcie-uplink-" + st.name, LinkClass::pcie_uplink, false});
}

}  // namespace

int nic_of_gpu(const PlatformSpec& spec, int gpu) {
  for (size_t n = 0; n < spec.nics.size(); ++n)
    if (std::find(spec.nics[n].gpus.begin(), spec.nics[n].gpus.end(), gpu) != spec.nics[n].gpus.end())
      return static_cast<int>(n);
  throw std::logic_error(fmt::format("GPU {} uses no NIC (spec not validated?)", gpu));
}

std::vector<NodeLinkRef> gpu_to_gpu_route(const PlatformSpec& spec, int a, int b) {
  if (spec.nvswitch)
    return {{fmt::format("nvswitch-port{}", a), LinkClass::nvswitch_port, true},
            {fmt::format("nvswitch-port{}", b), LinkClass::nvswitch_port, false}};
  if (spec.nvlink) {
    int lo = std::min(a, b), hi = std::max(a, b);
    for (const auto& p : spec.nvlink->pairs)
      if (p.a == lo && p.b == hi) return {{fmt::format("nvlink-{}-{}", lo, hi), LinkClass::nvlink, a < b}};
  }
  const PcieSpec& pcie = spec.pcie.value();
  std::vector<NodeLinkRef> route{{fmt::format("pcie-gpu{}", a), LinkClass::pcie_gpu, true}};
  append_switch_to_switch(pcie, switch_of_gpu(pcie, a), switch_of_gpu(pcie, b), route);
  route.push_back({fmt::format("pcie-gpu{}", b), LinkClass::pcie_gpu, false});
  return route;
}

std::vector<NodeLinkRef> gpu_to_nic_route(const PlatformSpec& spec, int gpu) {
  const NicSpec& nic = spec.nics[nic_of_gpu(spec, gpu)];
  std::vector<NodeLinkRef> route;
  if (!nic.pcie_switch.empty()) {
    const PcieSpec& pcie = spec.pcie.value();
    route.push_back({fmt::format("pcie-gpu{}", gpu), LinkClass::pcie_gpu, true});
    append_switch_to_switch(pcie, switch_of_gpu(pcie, gpu), switch_index(pcie, nic.pcie_switch), route);
  }
  route.push_back({"nic-" + nic.name, LinkClass::nic, true});
  return route;
}

LinkSpec node_link_spec(const PlatformSpec& spec, const NodeLinkRef& ref) {
  switch (ref.cls) {
    case LinkClass::pcie_gpu:
      return spec.pcie->gpu_link;
    case LinkClass::pcie_uplink:
      return spec.pcie->switch_uplink;
    case LinkClass::inter_socket:
      return spec.pcie->inter_socket.value();
    case LinkClass::nvswitch_port:
      return spec.nvswitch->port;
    case LinkClass::nvlink:
      for (const auto& p : spec.nvlink->pairs)
        if (ref.name == fmt::format("nvlink-{}-{}", p.a, p.b)) {
          LinkSpec l = spec.nvlink->link;
          l.bandwidth_Bps *= p.links;
          return l;
        }
      break;
    case LinkClass::nic:
      for (const auto& n : spec.nics)
        if (ref.name == "nic-" + n.name) return n.link;
      break;
  }
  throw std::logic_error("unknown node link " + ref.name);
}

RouteFigures route_figures(const PlatformSpec& spec, const std::vector<NodeLinkRef>& route) {
  RouteFigures f{std::numeric_limits<double>::infinity(), 0.0};
  for (const auto& ref : route) {
    LinkSpec l = node_link_spec(spec, ref);
    f.bandwidth_Bps = std::min(f.bandwidth_Bps, l.achieved_Bps());
    f.latency_s += l.latency_s;
  }
  return f;
}

std::string connection_label(const PlatformSpec& spec, int a, int b) {
  if (a == b) return "X";
  auto route = gpu_to_gpu_route(spec, a, b);
  if (route.front().cls == LinkClass::nvswitch_port) return "NVS";
  if (route.front().cls == LinkClass::nvlink) {
    for (const auto& p : spec.nvlink->pairs)
      if (p.a == std::min(a, b) && p.b == std::max(a, b)) return fmt::format("NV{}", p.links);
  }
  bool sys =
      std::any_of(route.begin(), route.end(), [](auto& r) { return r.cls == LinkClass::inter_socket; });
  if (sys) return "SYS";
  return route.size() == 2 ? "PIX" : "NODE";
}

}  // namespace dasim::platform
