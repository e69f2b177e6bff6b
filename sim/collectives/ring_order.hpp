// The order in which ranks form rings, chosen the way NCCL's topology search does it in spirit:
// inside a node, the cycle through all GPUs whose slowest hop is fastest (the DGX-1 hybrid cube
// mesh has an all-NV2 cycle 0-3-2-1-5-6-7-4), or several cycles over different links where one
// leaves links idle; across nodes, nodes in order, each entered and left along a cycle at the
// rotation that spreads the rings over the NICs. Pure function of the platform spec.
#pragma once

#include "platform/platform_spec.hpp"

#include <vector>

namespace dasim::collectives {

// Local GPU indices of one node in ring order (starts at GPU 0). Exhaustive for <= 9 GPUs per
// node, identity beyond.
std::vector<int> best_intra_node_cycle(const platform::PlatformSpec& spec);

// The rings NCCL's search runs side by side inside a node: on a point-to-point NVLink mesh (the
// DGX-1's hybrid cube mesh) each ring takes other links, so together they use the links a single
// ring leaves idle. As NCCL's search does in spirit: for each rate per ring (a directed link's
// achieved rate over 1, 2, ... rings), as many Hamiltonian cycles as the links allow at that rate
// (every ring takes the rate from each link its hops' routes cross), found by a depth-first
// search bounded by a count of steps (deterministic); the rate and count of most bandwidth win,
// `channels` rings exactly when it is set (0: any count up to 2 x GPUs; NCCL splits a collective
// evenly over its channels, so each ring gets the same rate). Where one ring already takes a
// whole port or PCIe path (NVSwitch, PCIe nodes) more rings add nothing and the result is
// best_intra_node_cycle alone. Cycles start at GPU 0; searched for 4 to 9 GPUs per node.
struct IntraNodeRings {
  std::vector<std::vector<int>> cycles;
  double aggregate_Bps = 0;     // rings x the achieved rate each gets under the others (bus bandwidth)
  bool beats_one_ring = false;  // false: one ring takes all there is (cycles: best_intra_node_cycle)
};
IntraNodeRings intra_node_rings(const platform::PlatformSpec& spec, int channels = 0);

// `channels` flat rings. Each enters and leaves every node at a rotation of an intra-node cycle,
// chosen so that the GPUs rings leave through (and enter through) use NICs as evenly as possible:
// with one ring per NIC every NIC carries one ring out and one ring in. Where rings over
// different links carry more inside a node (intra_node_rings for `channels` rings beats one
// ring), channel k runs on the k-th of those cycles; otherwise every channel on the best cycle.
std::vector<std::vector<int>> multi_ring_orders(const platform::PlatformSpec& spec, int channels);

}  // namespace dasim::collectives
