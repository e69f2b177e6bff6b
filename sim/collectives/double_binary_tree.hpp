// NCCL's trees (src/graph/trees.cc and connect.cc): inside each node the ranks form a chain; across
// nodes a double binary tree over the nodes connects the chains' heads. Tree 0 is a binary tree
// over the node indices in which alternate nodes are leaves (its root is node 0); tree 1 mirrors it
// (node i -> nodes-1-i) when the node count is even and shifts it by one node when it is odd, so a
// node is an inner node of at most one of the two. Each tree reduces, then broadcasts, half of the
// buffer, pipelined in chunks; the two trees run at once.
//
//   node tree:   n0 ── n4 ──┐            a node:  head ─ g1 ─ g2 ─ ... ─ g7   (chain, NVLink/PCIe)
//                     /  \   n6                    │
//                   n2    n5                       └─ parent node's head, child nodes' heads (NIC)
//
// Channels: NCCL runs several trees side by side, each channel's chains starting at a different
// GPU of the node so that the heads, which carry the inter-node edges, spread over the NICs.
#pragma once

#include "collectives/collective_instance.hpp"
#include "collectives/nccl_model.hpp"
#include "platform/platform_spec.hpp"

#include <array>
#include <functional>
#include <vector>

namespace dasim::collectives {

struct BinaryTree {
  std::vector<int> parent;                 // -1 for the root
  std::vector<std::vector<int>> children;  // indexed by rank
  int depth = 0;
  // Per rank, the edge to its parent: what it crosses, the route's latency and its narrowest
  // link's rate (set by the Communicator from the built platform).
  std::vector<HopKind> up_kind;
  std::vector<double> up_latency_s;
  std::vector<double> up_bandwidth_Bps;
  // Per rank, how many edges share the busier end of its edge to its parent (edges of one kind
  // leaving or entering one GPU) while a sweep's first chunk crosses it.
  std::vector<int> up_sharers;
};

struct TreeEdge {
  HopKind kind = HopKind::nvlink;
  double latency_s = 0;
  double bandwidth_Bps = 0;
};
// Fills a tree's per-edge fields from what each rank's edge to its parent crosses.
void set_tree_edges(BinaryTree& tree, const std::function<TreeEdge(int from, int to)>& edge);

// Sets up_sharers on each pair of trees 2c, 2c + 1 (their chains and heads coincide, so their
// sweeps cross the same GPU's links at the same time); needs the edges' kinds.
void set_channel_sharing(std::vector<BinaryTree>& trees);

// The two node-level trees of NCCL's double binary tree over `nodes` nodes (parent and children
// per node).
std::array<BinaryTree, 2> node_double_tree(int nodes);

// The 2 x `channels` rank-level trees NCCL builds on the platform: trees 2c and 2c + 1 of channel c
// (chains rotated to start at GPU cycle[c x g / channels], cycle = the best intra-node ring).
std::vector<BinaryTree> build_nccl_trees(const platform::PlatformSpec& spec, int channels);
// The same with the given node-level trees (a folded communicator's exchange pair: folded_trees.hpp).
std::vector<BinaryTree> build_nccl_trees(const platform::PlatformSpec& spec, int channels,
                                         const std::array<BinaryTree, 2>& node_trees);

// One chunk of a coarse tree's pipeline, as coarse_pipeline_end (double_binary_tree.cpp) and
// folded_pipeline_end (folded_trees.cpp) count it: how many chunks, a chunk's bytes on the wire,
// the time to reduce one child's chunk, and the first chunk's store-and-forward step over an edge.
struct PipelineChunk {
  PipelineChunk(const PartContext& ctx, double bytes);
  // Over an edge that `sharers` edges share as the first chunk crosses it: its share of the edge's
  // rate and at least the protocol's hop latency.
  double step_s(int sharers, double bandwidth_Bps, double latency_s, HopKind kind) const;
  // When the pipeline ends: chunks 2..k at `pace_s` after the first's `first_chunk_s`.
  double pipeline_end(double flows_began, double pace_s, double first_chunk_s) const {
    return flows_began + (count - 1) * pace_s + first_chunk_s;
  }
  const ProtocolCosts& costs;
  int count;
  double wire_bytes;
  double reduce_s;
};

// Reduce sweep (leaves to root) and broadcast sweep (root to leaves) of `bytes` on one tree for
// ctx.rank; run in two actors so the sweeps pipeline as in NCCL. The bytes on the wire are the
// data / the protocol's bandwidth factor.
// Fine granularity moves the data in chunks (NCCL's pipeline); each sweep's first chunk waits at
// least the protocol's hop latency per edge. Coarse granularity moves each edge's data in one flow,
// all edges at once, as in the pipeline's steady state; once every edge is done it ends the tree
// when that pipeline would have: the slowest flow / chunks paces the chunks and the first chunk
// crosses the slowest path up and down, each edge at chunk / its rate plus at least the protocol's
// hop latency. Far fewer flows for the solver on large trees, for the same time
// (tests/collectives/nccl_tree_test.cpp).
// Fine granularity: one actor per sweep and tree.
void run_tree_reduce(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes);
void run_tree_broadcast(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes);
// Coarse granularity: one actor runs ctx.rank's flows of every tree (`bytes` each) and ends when
// the slowest tree's pipeline would; on a folded communicator, the pipeline of the `represented`
// node-level trees (folded_trees.hpp).
void run_coarse_trees(const PartContext& ctx, const std::vector<BinaryTree>& trees, double bytes,
                      const std::array<BinaryTree, 2>* represented = nullptr);

}  // namespace dasim::collectives
