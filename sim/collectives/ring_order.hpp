// The order in which ranks form rings, chosen the way NCCL's topology search does it in spirit:
// inside a node, the cycle through all GPUs whose slowest hop is fastest (the DGX-1 hybrid cube
// mesh has an all-NV2 cycle 0-3-2-1-5-6-7-4); across nodes, nodes in order, each entered and left
// along that cycle. Pure function of the platform spec.
#pragma once

#include "platform/platform_spec.hpp"

#include <vector>

namespace dasim::collectives {

// Local GPU indices of one node in ring order (starts at GPU 0). Exhaustive for <= 9 GPUs per
// node, identity beyond.
std::vector<int> best_intra_node_cycle(const platform::PlatformSpec& spec);

// The rings NCCL's search runs side by side inside ONE node: on a point-to-point NVLink mesh
// (the DGX-1's hybrid cube mesh) each ring takes other links, so together they use the links a
// single ring leaves idle. Greedy, like NCCL's search in spirit: ring after ring, the cycle whose
// busiest link (rings per directed link over its achieved rate, counting the links every hop's
// route crosses) is least busy once it is added; `channels` rings, or with 0 the count that gives
// the most bandwidth when every ring carries an equal share (NCCL splits a collective evenly over
// its channels): k x the least achieved rate per ring over the links. Where one ring already
// takes a whole port or PCIe path (NVSwitch, PCIe nodes) more rings add nothing and the result is
// best_intra_node_cycle alone. Cycles start at GPU 0; exhaustive for 4 to 9 GPUs per node.
struct IntraNodeRings {
  std::vector<std::vector<int>> cycles;
  double aggregate_Bps = 0;     // rings x the achieved rate each gets under the others (bus bandwidth)
  bool beats_one_ring = false;  // false: one ring takes all there is (cycles: best_intra_node_cycle)
};
IntraNodeRings intra_node_rings(const platform::PlatformSpec& spec, int channels = 0);

// `channels` flat rings. Each enters and leaves every node at a different rotation of the
// intra-node cycle, chosen so that the GPUs rings leave through (and enter through) use NICs as
// evenly as possible: with one ring per NIC every NIC carries one ring out and one ring in.
std::vector<std::vector<int>> multi_ring_orders(const platform::PlatformSpec& spec, int channels);

}  // namespace dasim::collectives
