#include "collectives/double_binary_tree.hpp"

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

}  // namespace

BinaryTree build_in_order_tree(const std::vector<int>& order) {
  const size_t p = order.size();
  BinaryTree tree;
  tree.parent.assign(p, -1);
  tree.children.assign(p, {});
  std::function<void(int, int, int, int)> build = [&](int lo, int hi, int parent, int level) {
    if (lo > hi) return;
    int mid = lo + (hi - lo) / 2;
    int node = order[size_t(mid)];
    tree.parent[size_t(node)] = parent;
    if (parent >= 0) tree.children[size_t(parent)].push_back(node);
    tree.depth = std::max(tree.depth, level);
    build(lo, mid - 1, node, level + 1);
    build(mid + 1, hi, node, level + 1);
  };
  build(0, static_cast<int>(p) - 1, -1, 0);
  return tree;
}

std::vector<BinaryTree> build_double_binary_tree(const std::vector<int>& order) {
  std::vector<int> shifted(order.size());
  for (size_t i = 0; i < order.size(); ++i) shifted[i] = order[(i + 1) % order.size()];
  return {build_in_order_tree(order), build_in_order_tree(shifted)};
}

void run_tree_reduce(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes) {
  const int chunks = chunk_count(ctx.options, bytes);
  const double chunk = bytes / chunks;
  const auto& children = tree.children[size_t(ctx.rank)];
  const int parent = tree.parent[size_t(ctx.rank)];
  const double reduce_s = reduction_time_s(ctx.options, chunk) * static_cast<double>(children.size());
  // Receives for every chunk are posted up front, as NCCL's pre-allocated buffers let children
  // send ahead; chunk c is reduced once the first (c+1) x children messages are in.
  std::vector<sg4::CommPtr> from_children;
  for (size_t k = 0; k < size_t(chunks) * children.size(); ++k)
    from_children.push_back(ctx.receive_async(tree_up_channel(tree_index)));
  for (int c = 0; c < chunks; ++c) {
    for (size_t k = 0; k < children.size(); ++k) from_children[size_t(c) * children.size() + k]->wait();
    if (reduce_s > 0) sg4::this_actor::sleep_for(reduce_s);
    if (parent >= 0)
      ctx.send_async(parent, tree_up_channel(tree_index), chunk)->wait();
    else
      ctx.instance.root_reduced(tree_index)->release();  // root: chunk c fully reduced
  }
}

void run_tree_broadcast(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes) {
  const int chunks = chunk_count(ctx.options, bytes);
  const double chunk = bytes / chunks;
  const auto& children = tree.children[size_t(ctx.rank)];
  const bool root = tree.parent[size_t(ctx.rank)] < 0;
  std::vector<sg4::CommPtr> from_parent;
  if (!root)
    for (int c = 0; c < chunks; ++c) from_parent.push_back(ctx.receive_async(tree_down_channel(tree_index)));
  for (int c = 0; c < chunks; ++c) {
    if (root)
      ctx.instance.root_reduced(tree_index)->acquire();
    else
      from_parent[size_t(c)]->wait();
    std::vector<sg4::CommPtr> sends;
    for (int child : children) sends.push_back(ctx.send_async(child, tree_down_channel(tree_index), chunk));
    for (auto& send : sends) send->wait();
  }
}

}  // namespace dasim::collectives
