// NCCL 2.4-style double binary tree: two in-order binary trees over the ranks, the second built
// on the ranks shifted by one so that (for even P) every leaf of one tree is an inner node of the
// other. Each tree reduces, then broadcasts, half of the buffer, pipelined in chunks; the two
// trees run at once. Small-message latency grows with log2(P), not P.
#pragma once

#include "collectives/collective_instance.hpp"

#include <vector>

namespace dasim::collectives {

struct BinaryTree {
  std::vector<int> parent;                 // -1 for the root
  std::vector<std::vector<int>> children;  // indexed by rank
  int depth = 0;
};

// In-order balanced binary tree over `order` (a permutation of the ranks).
BinaryTree build_in_order_tree(const std::vector<int>& order);

// The two trees for ranks in `order`.
std::vector<BinaryTree> build_double_binary_tree(const std::vector<int>& order);

// Reduce sweep (leaves to root) and broadcast sweep (root to leaves) of `bytes` on one tree for
// ctx.rank; run in two actors so the sweeps pipeline as in NCCL.
void run_tree_reduce(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes);
void run_tree_broadcast(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes);

}  // namespace dasim::collectives
