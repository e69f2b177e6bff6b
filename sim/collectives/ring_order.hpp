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

// `channels` flat rings. Each enters and leaves every node at a different rotation of the
// intra-node cycle, chosen so that the GPUs rings leave through (and enter through) use NICs as
// evenly as possible: with one ring per NIC every NIC carries one ring out and one ring in.
std::vector<std::vector<int>> multi_ring_orders(const platform::PlatformSpec& spec, int channels);

}  // namespace dasim::collectives
