// Whether collectives on a platform are symmetric enough to simulate on two of its nodes, which
// stand for all of them (a Communicator built with represented_nodes; engine/symmetric_fold.hpp
// for whole training runs, collective_benchmark.hpp for sweeps).
//
// Two nodes joined in a ring put on each of their links exactly the flows every node's links
// carry in a ring over all nodes when: the platform is one site of one node type on a star or a
// fat tree without oversubscription (every node pair reached alike), flows are coarse (one per
// ring phase or tree edge), progress is not polled rounds (one PolledRing over every rank), and
// every collective runs on rings or trees: NCCL's ring, the hierarchical algorithm's rings inside
// the nodes and across them, or NCCL's double binary tree, whose busiest nodes' load two nodes
// exchanging with each other reproduce (folded_trees.hpp). NVLS and the chain broadcast are not
// folded (NVLS runs on one node; a broadcast starts at one root).
#pragma once

#include "collectives/collective_types.hpp"
#include "platform/platform_spec.hpp"

#include <string>
#include <utility>
#include <vector>

namespace dasim::collectives {

// The nodes a fold simulates.
inline constexpr int kFoldedNodes = 2;

// The words of why_not_symmetric's reason for trees across fat-tree leaves, which
// CollectiveOptions::fold_trees_across_leaves folds on request.
inline constexpr const char* kTreesAcrossLeaves = "across fat-tree leaves";

using CollectiveCall = std::pair<Op, double>;  // an operation and its bytes

// Empty when collectives `calls` on `spec` under `options` fold; else the first condition that
// does not hold, in words ("a dragonfly fabric: routes differ between node pairs").
std::string why_not_symmetric(const platform::PlatformSpec& spec, const CollectiveOptions& options,
                              const std::vector<CollectiveCall>& calls);

}  // namespace dasim::collectives
