// Which links a transfer crosses inside one node, as a pure function of the spec. The SimGrid
// builder turns these into routes; tests and `platform show` reason about them without SimGrid.
//
//   GPU a -> GPU b:  NVSwitch ports if the node has NVSwitch, else the pair's NVLink if it has one,
//                    else the PCIe path: gpu link up, [switch uplink up, inter-socket, switch
//                    uplink down,] gpu link down.
//   GPU a -> NIC:    the PCIe path from a to the NIC's switch, then the NIC link (up).
#pragma once

#include "platform/platform_spec.hpp"

#include <string>
#include <vector>

namespace dasim::platform {

enum class LinkClass { pcie_gpu, pcie_uplink, inter_socket, nvlink, nvswitch_port, nic };

struct NodeLinkRef {
  std::string name;  // unique inside the node, e.g. "pcie-gpu3", "nvlink-0-3", "nic-mlx5_0"
  LinkClass cls;
  bool up;  // direction through a split-duplex link (up = away from the GPU that starts the route)
};

// Local link names; `index` is a GPU, switch or NIC index depending on the class.
std::vector<NodeLinkRef> gpu_to_gpu_route(const PlatformSpec& spec, int a, int b);
std::vector<NodeLinkRef> gpu_to_nic_route(const PlatformSpec& spec, int gpu);
int nic_of_gpu(const PlatformSpec& spec, int gpu);

// The figures of one local link (bandwidth already multiplied by NVLink counts).
LinkSpec node_link_spec(const PlatformSpec& spec, const NodeLinkRef& ref);

// Bandwidth of the bottleneck (achieved rates, transports.hpp) and the summed latency along a node route.
struct RouteFigures {
  double bandwidth_Bps;
  double latency_s;
};
RouteFigures route_figures(const PlatformSpec& spec, const std::vector<NodeLinkRef>& route);

// Connection label of a GPU pair inside a node, as `nvidia-smi topo -m` prints it: NV<k> (k
// NVLinks), NVS (NVSwitch), PIX (same PCIe switch), NODE (different switches, same socket), SYS
// (across the inter-socket link), X (the GPU itself).
std::string connection_label(const PlatformSpec& spec, int a, int b);

}  // namespace dasim::platform
