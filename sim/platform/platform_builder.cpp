#include "platform/platform_builder.hpp"

#include "platform/dragonfly.hpp"
#include "platform/node_routes.hpp"
#include "platform/platform_loader.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <map>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace dasim::platform {
namespace {

sg4::Link::SharingPolicy policy_of(Sharing sharing) {
  return sharing == Sharing::shared ? sg4::Link::SharingPolicy::SHARED
                                    : sg4::Link::SharingPolicy::SPLITDUPLEX;
}

// Creates the links of one node lazily, by local name, so that only links some route uses exist.
class NodeLinks {
 public:
  NodeLinks(const PlatformSpec& spec, sg4::NetZone* zone, std::string prefix)
      : spec_(spec), zone_(zone), prefix_(std::move(prefix)) {}

  std::vector<sg4::LinkInRoute> route(const std::vector<NodeLinkRef>& refs) {
    std::vector<sg4::LinkInRoute> out;
    for (const auto& ref : refs) {
      auto [link, split] = get(ref);
      if (split)
        out.emplace_back(link, ref.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
      else
        out.emplace_back(link);
    }
    return out;
  }

 private:
  std::pair<const sg4::Link*, bool> get(const NodeLinkRef& ref) {
    auto it = links_.find(ref.name);
    if (it != links_.end()) return it->second;
    LinkSpec l = node_link_spec(spec_, ref);
    std::string name = prefix_ + ref.name;
    std::pair<const sg4::Link*, bool> created;
    if (l.sharing == Sharing::split_duplex) {
      auto* link = zone_->create_split_duplex_link(name, l.achieved_Bps());
      link->set_latency(l.latency_s)->seal();
      created = {link, true};
    } else {
      auto* link = zone_->create_link(name, l.achieved_Bps());
      link->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)->set_latency(l.latency_s)->seal();
      created = {link, false};
    }
    links_.emplace(ref.name, created);
    return created;
  }

  const PlatformSpec& spec_;
  sg4::NetZone* zone_;
  std::string prefix_;
  std::map<std::string, std::pair<const sg4::Link*, bool>> links_;
};

}  // namespace

std::string gpu_host_name(int node, int gpu) {
  return fmt::format("n{}g{}", node, gpu);
}

namespace {

using NetPoint = simgrid::kernel::routing::NetPoint;

// One node's zone inside the fabric: its GPU hosts (recorded in `built` in rank order), its
// gateway, and the routes GPU <-> GPU and GPU <-> gateway through the node's links.
std::pair<NetPoint*, NetPoint*> build_node(const PlatformSpec& spec, sg4::NetZone* fabric,
                                           unsigned long node_id, BuiltPlatform& built) {
  if (node_id >= static_cast<unsigned long>(spec.nodes)) {
    // A fat-tree leaf or dragonfly position beyond the node count: an empty switch port.
    return {fabric->create_router(fmt::format("{}-unused-port{}", fabric->get_name(), node_id)), nullptr};
  }
  const int n = static_cast<int>(node_id);
  auto* zone = sg4::create_full_zone(fmt::format("node{}", n));
  zone->set_parent(fabric);
  NodeLinks links(spec, zone, fmt::format("n{}-", n));
  std::vector<sg4::Host*> hosts;
  for (int g = 0; g < spec.gpus_per_node; ++g) {
    auto* host = zone->create_host(gpu_host_name(n, g), spec.gpu.speed_flops);
    host->seal();
    hosts.push_back(host);
    built.gpus[static_cast<size_t>(n * spec.gpus_per_node + g)] = host;
  }
  // With NVLS, the NVSwitch as an endpoint reached through each GPU's port alone: where it reduces.
  if (spec.nvswitch && spec.nvswitch->nvls_efficiency && spec.gpus_per_node > 1) {
    auto* nvswitch = zone->create_host(fmt::format("n{}-nvswitch", n), 1.0);
    nvswitch->seal();
    built.nvswitches[static_cast<size_t>(n)] = nvswitch;
    for (int a = 0; a < spec.gpus_per_node; ++a)
      zone->add_route(hosts[a]->get_netpoint(), nvswitch->get_netpoint(), nullptr, nullptr,
                      links.route({gpu_to_gpu_route(spec, a, (a + 1) % spec.gpus_per_node).front()}), true);
  }
  auto* gateway = zone->create_router(fmt::format("n{}-gw", n));
  for (int a = 0; a < spec.gpus_per_node; ++a) {
    for (int b = a + 1; b < spec.gpus_per_node; ++b)
      zone->add_route(hosts[a]->get_netpoint(), hosts[b]->get_netpoint(), nullptr, nullptr,
                      links.route(gpu_to_gpu_route(spec, a, b)), true);
    zone->add_route(hosts[a]->get_netpoint(), gateway, nullptr, nullptr,
                    links.route(gpu_to_nic_route(spec, a)), true);
  }
  zone->seal();
  return {zone->get_netpoint(), gateway};
}

// The fabric zone of the spec's topology, with one link of rails x rail bandwidth per node.
sg4::NetZone* create_fabric(const PlatformSpec& spec, const sg4::ClusterCallbacks& callbacks,
                            const std::string& name = "fabric", sg4::NetZone* parent = nullptr) {
  const double node_link_Bps = spec.fabric.link.achieved_Bps() * spec.rails();
  const double latency_s = spec.fabric.link.latency_s;
  const auto policy = policy_of(spec.fabric.link.sharing);
  auto fat_tree = [&](const sg4::FatTreeParams& params) {
    return sg4::create_fatTree_zone(name, parent, params, callbacks, node_link_Bps, latency_s, policy);
  };
  const unsigned nodes = static_cast<unsigned>(spec.nodes);
  switch (spec.fabric.topology) {
    case FabricTopology::star:
      // A single non-blocking switch: a one-level fat-tree whose only switch has one port per node.
      return fat_tree(sg4::FatTreeParams(1, {nodes}, {1}, {1}));
    case FabricTopology::fat_tree: {
      const unsigned radix = static_cast<unsigned>(spec.fabric.switch_radix);
      if (nodes <= radix) return fat_tree(sg4::FatTreeParams(1, {nodes}, {1}, {1}));
      // Two levels: leaf switches with `radix` node ports and radix / oversubscription uplinks,
      // one to each spine switch.
      const unsigned leaves = (nodes + radix - 1) / radix;
      const unsigned spines = static_cast<unsigned>(std::lround(radix / spec.fabric.oversubscription));
      return fat_tree(sg4::FatTreeParams(2, {radix, leaves}, {1, spines}, {1, 1}));
    }
    case FabricTopology::torus: {
      // A dimension of size 1 has no links (SimGrid would declare a node's link to itself twice
      // and abort), so it is left out; a torus of one node is that node alone on a switch.
      std::vector<unsigned long> dims;
      for (int d : torus_dimensions(spec.fabric, spec.nodes))
        if (d > 1) dims.push_back(static_cast<unsigned long>(d));
      if (dims.empty()) return fat_tree(sg4::FatTreeParams(1, {1}, {1}, {1}));
      return sg4::create_torus_zone(name, parent, dims, callbacks, node_link_Bps, latency_s, policy);
    }
    case FabricTopology::dragonfly: {
      // Every link has the fabric link's latency; a link count k is k x the node link (k cables
      // in each rail's plane). Positions past the last node are empty router ports (build_node).
      const auto shape = dragonfly_shape(spec.fabric.dragonfly, spec.nodes);
      const auto& d = spec.fabric.dragonfly;
      auto count = [](int n) { return static_cast<unsigned>(n); };
      const sg4::DragonflyParams params({count(shape.groups), count(d.links_between_groups)},
                                        {count(shape.chassis), count(d.links_between_chassis)},
                                        {count(shape.routers), count(d.links_between_routers)},
                                        count(shape.nodes_per_router));
      return sg4::create_dragonfly_zone(name, parent, params, callbacks, node_link_Bps, latency_s, policy);
    }
  }
  throw std::logic_error("unhandled fabric topology");
}

// Sites: each site's nodes on a fabric of their own, with one more leaf, the site's border router;
// the sites' fabrics are zones of a full WAN zone whose routes cross the two sites' uplinks.
void build_sites(const PlatformSpec& spec, BuiltPlatform& built) {
  auto* wan = sg4::create_full_zone("wan");
  std::vector<sg4::NetZone*> zones;
  std::vector<NetPoint*> borders;
  for (int site = 0; site < spec.sites.count; ++site) {
    // The site's node type (numbered among all nodes) and fabric (its nodes and the border leaf).
    const int per_site = spec.site_nodes(site), first = spec.first_node_of_site(site);
    PlatformSpec site_nodes = spec.site_platform(site);
    site_nodes.nodes = spec.nodes;
    PlatformSpec site_fabric = site_nodes;
    site_fabric.nodes = per_site + 1;
    NetPoint* border = nullptr;
    sg4::ClusterCallbacks callbacks(
        [&](sg4::NetZone* fabric, const std::vector<unsigned long>& /*coord*/, unsigned long leaf) {
          if (leaf == static_cast<unsigned long>(per_site)) {
            border = fabric->create_router(fmt::format("site{}-border", site));
            return std::pair<NetPoint*, NetPoint*>{border, nullptr};
          }
          if (leaf > static_cast<unsigned long>(per_site))
            return build_node(site_nodes, fabric, static_cast<unsigned long>(spec.nodes) + leaf,
                              built);  // unused port
          return build_node(site_nodes, fabric, static_cast<unsigned long>(first) + leaf, built);
        });
    auto* zone = create_fabric(site_fabric, callbacks, fmt::format("site{}", site), wan);
    zone->seal();
    zones.push_back(zone);
    borders.push_back(border);
  }
  std::vector<const sg4::Link*> uplinks;
  for (int site = 0; site < spec.sites.count; ++site) {
    auto* link =
        wan->create_split_duplex_link(fmt::format("site{}-wan", site), spec.sites.wan.achieved_Bps());
    link->set_latency(spec.sites.wan.latency_s / 2)->seal();
    uplinks.push_back(link);
  }
  using Direction = sg4::LinkInRoute::Direction;
  for (int a = 0; a < spec.sites.count; ++a)
    for (int b = a + 1; b < spec.sites.count; ++b)
      wan->add_route(zones[a]->get_netpoint(), zones[b]->get_netpoint(), borders[a], borders[b],
                     {{uplinks[a], Direction::UP}, {uplinks[b], Direction::DOWN}}, true);
  wan->seal();
}

}  // namespace

BuiltPlatform build_platform(const PlatformSpec& spec) {
  BuiltPlatform built;
  built.nodes = spec.nodes;
  built.gpus_per_node = spec.gpus_per_node;
  built.gpus.resize(static_cast<size_t>(spec.total_gpus()));
  // Per node when any node type has NVLS (null for the nodes of a site without).
  for (int site = 0; site < spec.sites.count; ++site)
    if (const auto& nvswitch = spec.site_platform(site).nvswitch; nvswitch && nvswitch->nvls_efficiency)
      built.nvswitches.resize(static_cast<size_t>(spec.nodes));
  sg4::ClusterCallbacks callbacks(
      [&](sg4::NetZone* fabric, const std::vector<unsigned long>& /*coord*/, unsigned long node_id) {
        return build_node(spec, fabric, node_id, built);
      });
  if (spec.sites.count > 1)
    build_sites(spec, built);
  else
    create_fabric(spec, callbacks)->seal();
  return built;
}

BuiltPlatform node_range(const BuiltPlatform& whole, int first_node, int count) {
  BuiltPlatform part;
  part.nodes = count;
  part.gpus_per_node = whole.gpus_per_node;
  const auto first_gpu = whole.gpus.begin() + static_cast<long>(first_node) * whole.gpus_per_node;
  part.gpus.assign(first_gpu, first_gpu + static_cast<long>(count) * whole.gpus_per_node);
  if (!whole.nvswitches.empty())
    part.nvswitches.assign(whole.nvswitches.begin() + first_node,
                           whole.nvswitches.begin() + first_node + count);
  return part;
}

BuiltPlatform gpu_stride(const BuiltPlatform& whole, int first_gpu, int stride) {
  BuiltPlatform part;
  part.gpus_per_node = 1;
  for (size_t g = size_t(first_gpu); g < whole.gpus.size(); g += size_t(stride))
    part.gpus.push_back(whole.gpus[g]);
  part.nodes = static_cast<int>(part.gpus.size());
  return part;
}

}  // namespace dasim::platform
