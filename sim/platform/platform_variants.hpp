// Derived platforms: the one-GPU baseline a scale-up curve divides by, and the numeric parameters
// a scenario can sweep (interconnect sizing studies).
#pragma once

#include "platform/platform_spec.hpp"

#include <string>
#include <vector>

namespace dasim::platform {

// The same GPU type alone: one node, one GPU, no intra-node links, its NIC kept.
PlatformSpec single_gpu(const PlatformSpec& spec);

// GPU `gpu` of each of `nodes` nodes, as a communicator over them sees its platform: one GPU per
// node with that GPU's NIC and PCIe path, no links inside a node. What NCCL's tuner and the ring
// order read for the peers of sharded islands (GPU r of every island); not validated nor built
// (its fabric and sites still describe the whole platform, whose routes the peers use).
PlatformSpec gpu_peers(const PlatformSpec& spec, int nodes, int gpu);

// Parameters a sweep may set, with the unit their values are read in:
//   inter_node_bandwidth (every NIC and the fabric rail), nic_bandwidth, fabric_bandwidth,
//   nvlink_bandwidth, nvswitch_bandwidth, pcie_bandwidth (GPU links and switch uplinks):
//   bandwidth; fabric_latency, nic_latency: time; oversubscription: plain number.
const std::vector<std::string>& sweep_parameters();
// "bandwidth" | "time" | "number"; empty for an unknown parameter.
std::string sweep_parameter_unit(const std::string& parameter);
// Column name in results: parameter + "_Bps" / "_s" / "".
std::string sweep_column(const std::string& parameter);
// Applies `value` (already in SI units) to `spec`. Throws InputError when the platform lacks the
// part (e.g. nvlink_bandwidth on a PCIe-only node).
void apply_sweep(PlatformSpec& spec, const std::string& parameter, double value);

}  // namespace dasim::platform
