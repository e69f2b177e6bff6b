// The validated, unit-free description of a platform: one node type replicated `nodes` times and
// a fabric between the nodes. Produced by load_platform() from a JSON file, consumed by the
// SimGrid builder and by the pure route helpers (node_routes.hpp).
#pragma once

#include "common/enum_names.hpp"
#include "platform/transports.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dasim::platform {

enum class Sharing { split_duplex, shared };
inline constexpr EnumNames<Sharing, 2> kSharingNames{{{
    {Sharing::split_duplex, "split_duplex"},
    {Sharing::shared, "shared"},
}}};

// NCCL's socket transport over a TCP NIC: `sockets` connections in all (NCCL_SOCKET_NTHREADS x
// NCCL_NSOCKS_PERTHREAD per channel, times the channels that use the NIC), each at most
// `socket_bandwidth_Bps` (a kernel TCP stream's limit, or a cloud's per-flow cap).
struct TcpSpec {
  int sockets = 1;
  double socket_bandwidth_Bps = 0;
};

struct LinkSpec {
  double bandwidth_Bps = 0;  // line rate, per direction
  double latency_s = 0;
  Sharing sharing = Sharing::split_duplex;
  Transport transport = Transport::ideal;
  std::optional<double> efficiency;  // overrides the transport's default
  std::optional<TcpSpec> tcp;

  double efficiency_used() const { return efficiency.value_or(transport_facts(transport).efficiency); }
  // What a large transfer reaches: line rate x efficiency, and no more than the TCP sockets carry.
  double achieved_Bps() const;
};

// The GPU generation NCCL's tuner keys its constants by (compute capability below 8.0 takes the
// Volta row); unknown for a model dasim cannot place, which leaves those constants out.
enum class GpuGeneration { unknown, volta, ampere, hopper, blackwell };
inline constexpr EnumNames<GpuGeneration, 5> kGpuGenerationNames{{{
    {GpuGeneration::unknown, "unknown"},
    {GpuGeneration::volta, "volta"},
    {GpuGeneration::ampere, "ampere"},
    {GpuGeneration::hopper, "hopper"},
    {GpuGeneration::blackwell, "blackwell"},
}}};

// The host CPU's vendor, which NCCL's tuner reads for its LL bandwidth limit across nodes.
enum class CpuVendor { intel, amd, arm };
inline constexpr EnumNames<CpuVendor, 3> kCpuVendorNames{{{
    {CpuVendor::intel, "intel"},
    {CpuVendor::amd, "amd"},
    {CpuVendor::arm, "arm"},
}}};

struct GpuSpec {
  std::string model;
  GpuGeneration generation = GpuGeneration::unknown;  // "generation", else from the model's name
  double speed_flops = 0;                             // SimGrid host speed: the GPU's effective FLOP/s
  std::string calibration;  // calibration file, resolved relative to the platform file
};

struct PcieSwitchSpec {
  std::string name;
  int socket = 0;
  std::vector<int> gpus;
};

// GPUs under PCIe switches, each switch uplinked to its CPU socket's root complex, sockets joined
// by an inter-socket link (QPI/UPI/xGMI).
struct PcieSpec {
  LinkSpec gpu_link;       // GPU <-> its switch
  LinkSpec switch_uplink;  // switch <-> root complex
  std::optional<LinkSpec> inter_socket;
  std::vector<PcieSwitchSpec> switches;
};

struct NvlinkPair {
  int a = 0, b = 0;
  int links = 1;  // parallel NVLinks between the pair (the pair's bandwidth is links x per-link)
};

struct NvlinkSpec {
  LinkSpec link;  // one NVLink, per direction
  std::vector<NvlinkPair> pairs;
};

struct NvswitchSpec {
  LinkSpec port;  // each GPU's aggregate NVLink bandwidth into the switch fabric
  // NVLink SHARP (third-generation NVSwitch with Hopper or newer GPUs): the switch reduces. The
  // fraction of the port's line rate its multimem operations reach; absent: no NVLS.
  std::optional<double> nvls_efficiency;
};

struct NicSpec {
  std::string name;
  std::string pcie_switch;  // empty: attached directly to the GPU(s) it serves
  LinkSpec link;
  std::vector<int> gpus;  // GPUs whose inter-node traffic uses this NIC
};

enum class FabricTopology { star, fat_tree, torus, dragonfly };
inline constexpr EnumNames<FabricTopology, 4> kFabricTopologyNames{{{
    {FabricTopology::star, "star"},
    {FabricTopology::fat_tree, "fat_tree"},
    {FabricTopology::torus, "torus"},
    {FabricTopology::dragonfly, "dragonfly"},
}}};

// SimGrid's dragonfly (create_dragonfly_zone): groups of chassis of routers, `nodes_per_router`
// nodes on each router; routers of a chassis all-to-all, routers of the same index in the chassis
// of a group all-to-all, groups all-to-all. The link counts are cables of one rail (see
// FabricSpec::link): SimGrid gives each such link count x the node link's bandwidth.
struct DragonflySpec {
  int groups = 0;  // 0: as many as the node count needs
  int chassis_per_group = 1;
  int routers_per_chassis = 0;
  int nodes_per_router = 0;
  int links_between_groups = 1;
  int links_between_chassis = 1;
  int links_between_routers = 1;
};

struct FabricSpec {
  FabricTopology topology = FabricTopology::star;
  // One rail: a node has one rail per NIC, and SimGrid models the rails of a node as one link of
  // rails x bandwidth (rail-optimised fabrics keep rails apart; this is exact when all rails carry
  // equal load, which collectives do).
  LinkSpec link;
  int switch_radix = 0;               // fat_tree: nodes per leaf switch (given, or from leaf_ports)
  int leaf_ports = 0;                 // fat_tree: down ports of one leaf switch, when given that way
  bool rail_optimised = false;        // fat_tree with leaf_ports: one leaf per rail (a port per node)
  double oversubscription = 1.0;      // fat_tree: leaf downlink / uplink capacity
  std::vector<int> torus_dimensions;  // torus: explicit sizes, or empty with torus_rank set
  int torus_rank = 0;                 // torus: 2 or 3 -> dimensions factored from the node count
  DragonflySpec dragonfly;
};

// Several datacenters (sites) of the platform's nodes: the nodes split evenly into `count` sites,
// each with its own fabric, and each site's fabric reaches the others over its WAN uplink (a star
// over the internet: site a to site b crosses a's uplink and b's, each with half the one-way WAN
// latency, so a site pair sees `wan.latency` and `wan.bandwidth`).
struct SitesSpec {
  int count = 1;
  LinkSpec wan;  // between two sites: bandwidth per direction and one-way latency
  // Sites of different sizes: each site's share of the nodes, in proportion to these (the node
  // counts of the sites' platform files); empty: the nodes split evenly.
  std::vector<int> sizes;
  int64_t total_size() const;  // the sizes added up
};

struct NetworkModelSpec {
  std::string model = "CM02";  // no hidden latency/bandwidth factors (see SIMGRID-NOTES.md)
  bool crosstraffic = false;   // TCP ACK reverse traffic: off, RDMA fabrics have none
};

struct PlatformSpec {
  std::string file;
  std::string name;
  std::string description;
  int nodes = 1;
  int gpus_per_node = 1;
  GpuSpec gpu;
  CpuVendor cpu_vendor = CpuVendor::intel;  // node.cpu_vendor
  std::optional<PcieSpec> pcie;
  std::optional<NvlinkSpec> nvlink;
  std::optional<NvswitchSpec> nvswitch;
  std::vector<NicSpec> nics;
  FabricSpec fabric;
  SitesSpec sites;
  NetworkModelSpec network;

  // Sites of different node types ("sites": {"platforms": [...]}): each site's own node and
  // fabric (one platform each, in site order, every one with this platform's gpus_per_node);
  // empty when every site is this platform's node and fabric. This platform's own node and fabric
  // fields are then the first site's, which what sees one node type uses (NCCL's tuner, the ring
  // order inside nodes, the 1-GPU baseline).
  std::vector<PlatformSpec> site_platforms;

  int total_gpus() const { return nodes * gpus_per_node; }
  // Site `site`'s nodes, nodes first_node_of_site(site) onwards (in site order).
  int site_nodes(int site) const;
  int first_node_of_site(int site) const;
  int site_of_node(int node) const;
  bool mixed_sites() const { return !site_platforms.empty(); }
  // The node type and fabric of `site`: its own with mixed sites, else this platform's.
  const PlatformSpec& site_platform(int site) const {
    return site_platforms.empty() ? *this : site_platforms[size_t(site)];
  }
  int rails() const { return static_cast<int>(nics.size()); }
};

std::string to_string(FabricTopology topology);
std::string to_string(GpuGeneration generation);
std::string to_string(CpuVendor vendor);
// The generation a GPU model's name says: P100 and V100 Volta's row, A100 and A800 Ampere, H100,
// H200, H800 and GH200 Hopper, B100, B200, B300, GB200 and GB300 Blackwell; unknown otherwise.
GpuGeneration generation_of_model(const std::string& model);
std::string to_string(Sharing sharing);

}  // namespace dasim::platform
