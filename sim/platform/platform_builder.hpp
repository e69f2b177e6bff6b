// Turns a PlatformSpec into a SimGrid platform: one zone per node (GPUs as hosts, PCIe / NVLink /
// NVSwitch / NIC links with explicit routes) as the leaves of a fabric zone (a single switch, a
// fat-tree, a torus or a dragonfly from SimGrid's cluster zones).
//
//          fabric (star | fat_tree | torus | dragonfly), one link per node of rails x rail bandwidth
//        /                 |                     |
//   [node 0 zone]      [node 1 zone]   ...   [node N-1 zone]
//    gw router  <- nic links <- PCIe path <- GPU hosts n{i}g{0..G-1}
//    GPU <-> GPU: NVSwitch ports | NVLink pair | PCIe path
//
// SimGrid allows one Engine per process: build a platform inside a process that simulates once
// (see runtime/isolated_run.hpp).
#pragma once

#include "platform/platform_spec.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <string>
#include <vector>

namespace dasim::platform {

struct BuiltPlatform {
  std::vector<simgrid::s4u::Host*> gpus;  // rank order: node-major, rank = node * gpus_per_node + gpu
  std::vector<simgrid::s4u::Host*>
      nvswitches;  // per node, when its NVSwitch has NVLS (the reduction's endpoint)
  int nodes = 0;
  int gpus_per_node = 0;
};

BuiltPlatform build_platform(const PlatformSpec& spec);

// Nodes [first_node, first_node + count) of `whole`, ranks renumbered from 0 (an island).
BuiltPlatform node_range(const BuiltPlatform& whole, int first_node, int count);

// GPUs first_gpu, first_gpu + stride, ... of `whole` (GPU r of every island of `stride` GPUs), each
// a node of one GPU, ranks renumbered from 0.
BuiltPlatform gpu_stride(const BuiltPlatform& whole, int first_gpu, int stride);

std::string gpu_host_name(int node, int gpu);

}  // namespace dasim::platform
