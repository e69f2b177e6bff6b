#include "collectives/double_binary_tree.hpp"

#include "collectives/ring_order.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {
namespace {

int chunk_count(const CollectiveOptions& options, double bytes) {
  return std::clamp(static_cast<int>(std::ceil(bytes / options.tree_chunk_bytes)), 1,
                    options.tree_max_chunks);
}

// NCCL's binary tree over n ranks rooted at 0 in which alternate ranks are leaves: a rank's lowest
// set bit gives its level; its parent sets the next bit (or clears its own when that is out of
// range); its children are rank -/+ half that bit (the upper one halved until it is in range).
struct Links {
  int up = -1, down0 = -1, down1 = -1;
};
Links btree(int n, int r) {
  int bit = 1;
  while (bit < n && !(bit & r)) bit <<= 1;
  Links l;
  if (r == 0) {
    l.down1 = n > 1 ? bit >> 1 : -1;
    return l;
  }
  l.up = (r ^ bit) | (bit << 1);
  if (l.up >= n) l.up = r ^ bit;
  const int low = bit >> 1;
  l.down0 = low == 0 ? -1 : r - low;
  for (int half = low;; half >>= 1) {
    if (half == 0) break;
    if (r + half < n) {
      l.down1 = r + half;
      break;
    }
  }
  return l;
}

int tree_depth(const BinaryTree& t) {
  std::function<int(int)> below = [&](int r) {
    int d = 0;
    for (int c : t.children[size_t(r)]) d = std::max(d, 1 + below(c));
    return d;
  };
  for (size_t r = 0; r < t.parent.size(); ++r)
    if (t.parent[r] < 0) return below(static_cast<int>(r));
  return 0;
}

// The first chunk of a sweep crosses each edge no faster than the protocol's hop latency; the
// route's own latency is paid by the flow, the rest here.
double latency_floor_s(const PartContext& ctx, const BinaryTree& tree, int rank) {
  if (tree.up_kind.empty() || tree.parent[size_t(rank)] < 0) return 0;
  return std::max(
      0.0, ctx.instance.costs.hop_latency(tree.up_kind[size_t(rank)]) - tree.up_latency_s[size_t(rank)]);
}

}  // namespace

std::array<BinaryTree, 2> node_double_tree(int nodes) {
  std::array<BinaryTree, 2> trees;
  for (auto& t : trees) {
    t.parent.assign(size_t(nodes), -1);
    t.children.assign(size_t(nodes), {});
  }
  // Tree 1: the mirror image for an even node count, tree 0 shifted by one node for an odd one.
  auto image = [nodes](int x) { return nodes % 2 == 0 ? nodes - 1 - x : (x + 1) % nodes; };
  auto preimage = [nodes](int x) { return nodes % 2 == 0 ? nodes - 1 - x : (x - 1 + nodes) % nodes; };
  for (int node = 0; node < nodes; ++node) {
    const Links t0 = btree(nodes, node);
    trees[0].parent[size_t(node)] = t0.up;
    const Links t1 = btree(nodes, preimage(node));
    trees[1].parent[size_t(node)] = t1.up < 0 ? -1 : image(t1.up);
    for (int d : {t0.down0, t0.down1})
      if (d >= 0) trees[0].children[size_t(node)].push_back(d);
    for (int d : {t1.down0, t1.down1})
      if (d >= 0) trees[1].children[size_t(node)].push_back(image(d));
  }
  for (auto& t : trees) t.depth = tree_depth(t);
  return trees;
}

std::vector<BinaryTree> build_nccl_trees(const platform::PlatformSpec& spec, int channels) {
  const int g = spec.gpus_per_node, nodes = spec.nodes, p = spec.total_gpus();
  const auto cycle = best_intra_node_cycle(spec);
  const auto node_trees = node_double_tree(nodes);
  std::vector<BinaryTree> trees;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> chain;  // local GPU indices, head first
    for (int i = 0; i < g; ++i) chain.push_back(cycle[size_t((c * g / channels + i) % g)]);
    auto rank_of = [&](int node, int position) { return node * g + chain[size_t(position)]; };
    for (const auto& node_tree : node_trees) {
      BinaryTree t;
      t.parent.assign(size_t(p), -1);
      t.children.assign(size_t(p), {});
      for (int node = 0; node < nodes; ++node) {
        for (int i = 0; i < g; ++i) {
          const int r = rank_of(node, i);
          if (i > 0) t.parent[size_t(r)] = rank_of(node, i - 1);
          if (i + 1 < g) t.children[size_t(r)].push_back(rank_of(node, i + 1));
        }
        const int head = rank_of(node, 0);
        if (node_tree.parent[size_t(node)] >= 0)
          t.parent[size_t(head)] = rank_of(node_tree.parent[size_t(node)], 0);
        for (int child : node_tree.children[size_t(node)])
          t.children[size_t(head)].push_back(rank_of(child, 0));
      }
      t.depth = tree_depth(t);
      trees.push_back(std::move(t));
    }
  }
  return trees;
}

void run_tree_reduce(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes) {
  const int chunks = chunk_count(ctx.options, bytes);
  const double chunk = bytes / chunks;
  const double wire_chunk = chunk / ctx.instance.costs.bandwidth_factor;
  const auto& children = tree.children[size_t(ctx.rank)];
  const int parent = tree.parent[size_t(ctx.rank)];
  const double reduce_s = reduction_time_s(ctx.options, chunk) * static_cast<double>(children.size());
  // Receives for every chunk are posted up front, as NCCL's pre-allocated buffers let children
  // send ahead; chunk c is reduced once the first (c+1) x children messages are in.
  std::vector<sg4::CommPtr> from_children;
  for (size_t k = 0; k < size_t(chunks) * children.size(); ++k)
    from_children.push_back(ctx.receive_async(tree_up_channel(tree_index)));
  const double floor_s = latency_floor_s(ctx, tree, ctx.rank);
  for (int c = 0; c < chunks; ++c) {
    for (size_t k = 0; k < children.size(); ++k) from_children[size_t(c) * children.size() + k]->wait();
    if (reduce_s > 0) sg4::this_actor::sleep_for(reduce_s);
    if (parent >= 0) {
      if (c == 0 && floor_s > 0) sg4::this_actor::sleep_for(floor_s);
      ctx.send_async(parent, tree_up_channel(tree_index), wire_chunk)->wait();
    } else {
      ctx.instance.root_reduced(tree_index)->release();  // root: chunk c fully reduced
    }
  }
}

void run_tree_broadcast(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes) {
  const int chunks = chunk_count(ctx.options, bytes);
  const double wire_chunk = bytes / chunks / ctx.instance.costs.bandwidth_factor;
  const auto& children = tree.children[size_t(ctx.rank)];
  const bool root = tree.parent[size_t(ctx.rank)] < 0;
  std::vector<sg4::CommPtr> from_parent;
  if (!root)
    for (int c = 0; c < chunks; ++c) from_parent.push_back(ctx.receive_async(tree_down_channel(tree_index)));
  double floor_s = 0;
  for (int child : children) floor_s = std::max(floor_s, latency_floor_s(ctx, tree, child));
  for (int c = 0; c < chunks; ++c) {
    if (root)
      ctx.instance.root_reduced(tree_index)->acquire();
    else
      from_parent[size_t(c)]->wait();
    if (c == 0 && floor_s > 0) sg4::this_actor::sleep_for(floor_s);
    std::vector<sg4::CommPtr> sends;
    for (int child : children)
      sends.push_back(ctx.send_async(child, tree_down_channel(tree_index), wire_chunk));
    for (auto& send : sends) send->wait();
  }
}

}  // namespace dasim::collectives
