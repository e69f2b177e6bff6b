// NCCL's trees on a folded communicator (engine/symmetric_fold.hpp): two built nodes stand for
// all N. Coarse tree flows run all at once, so what sets their times is how many flows each link
// carries. Over NCCL's double binary tree a node is an inner node (an edge to its parent and to
// two children) in one tree and a leaf (an edge to its parent) in the other, so the busiest
// nodes' heads carry 4 edges per channel, each edge a flow out and a flow in. The built nodes
// reproduce that load with an exchange pair: in each of a channel's two trees each built head's
// parent and child is the other's head, 2 edges per tree, 4 in all, as separate flows (3 nodes,
// whose busiest node has 3 edges: one edge in tree 1).
//
//   real, channel c:  tree 0: n ── parent, n ── child, n ── child   tree 1: n ── parent
//   folded:           tree 0: A ⇄ B (A's parent B, B's parent A)     tree 1: the same
//
// The exchange pair is not a tree; when the pipeline ends comes from the represented trees: the
// node-level double binary tree over the N nodes (its depth, each node's children), each node's
// chain as built, and each edge's flow time taken from the built edge of its kind (every chain
// position's, every net edge's). Every edge between nodes has the built pair's route: a star, or
// a fat tree whose represented nodes share one leaf (symmetry.cpp says why not across leaves).
#pragma once

#include "collectives/collective_instance.hpp"
#include "collectives/double_binary_tree.hpp"

#include <array>

namespace dasim::collectives {

// `represented`: what the folded trees stand for, NCCL's double binary tree over the represented
// nodes (node_double_tree).

// The built nodes' node-level trees: as many edges between the two as the represented trees'
// busiest node has (4; 3 on 3 nodes), tree 0 taking the odd one. An edge both ways in a tree is
// each head's parent and child the other's head.
std::array<BinaryTree, 2> exchange_pair_trees(const std::array<BinaryTree, 2>& represented);

// When the chunked pipeline of built tree `built` (channel tree t: node tree t % 2) ends, as
// coarse_pipeline_end would compute it on the represented trees.
double folded_pipeline_end(const PartContext& ctx, const BinaryTree& built,
                           const std::array<BinaryTree, 2>& represented, int tree_index,
                           const CollectiveInstance::CoarseTree& state, double bytes);

}  // namespace dasim::collectives
