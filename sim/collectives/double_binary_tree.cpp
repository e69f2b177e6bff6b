#include "collectives/double_binary_tree.hpp"

#include "collectives/folded_trees.hpp"
#include "collectives/ring_order.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {
namespace {

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

// When the chunked pipeline that the coarse flows stand for ends. Chunks 2..k follow the first at
// the pace of the slowest edge under load: its coarse flow's time (less its latency) / k, plus the
// reductions of a chunk where the edge leaves a rank with children. The first chunk crosses the
// slowest leaf-to-root path, then the slowest root-to-leaf path, in store-and-forward steps of
// chunk / the edge's rate + max(route latency, the protocol's hop latency) each (the pipeline
// starts empty, so the first chunk meets little load).
double coarse_pipeline_end(const PartContext& ctx, const BinaryTree& tree,
                           const CollectiveInstance::CoarseTree& state, double bytes) {
  const int p = static_cast<int>(tree.parent.size());
  const PipelineChunk chunk(ctx, bytes);
  auto reduce_s = [&](int r) {
    return chunk.reduce_s * static_cast<double>(tree.children[size_t(r)].size());
  };
  std::vector<double> up(size_t(p), -1), down(size_t(p), -1);  // first chunk's path from the root
  double pace_s = 0;
  std::function<void(int)> cost = [&](int r) {  // parents before children (the depth is small)
    if (up[size_t(r)] >= 0) return;
    const int parent = tree.parent[size_t(r)];
    if (parent < 0) {
      up[size_t(r)] = reduce_s(r);  // the root reduces each chunk before broadcasting it
      down[size_t(r)] = 0;
      pace_s = std::max(pace_s, up[size_t(r)]);
      return;
    }
    cost(parent);
    const double latency = tree.up_latency_s[size_t(r)];
    const double step = chunk.step_s(tree.up_sharers[size_t(r)], tree.up_bandwidth_Bps[size_t(r)], latency,
                                     tree.up_kind[size_t(r)]);
    up[size_t(r)] = up[size_t(parent)] + step + reduce_s(r);
    down[size_t(r)] = down[size_t(parent)] + step;
    const double up_flow = state.up_done[size_t(r)] - state.flows_began - latency;
    const double down_flow = state.down_done[size_t(r)] - state.flows_began - latency;
    pace_s = std::max({pace_s, up_flow / chunk.count + reduce_s(r), down_flow / chunk.count});
  };
  for (int r = 0; r < p; ++r) cost(r);
  const double first_chunk_s =
      *std::max_element(up.begin(), up.end()) + *std::max_element(down.begin(), down.end());
  return chunk.pipeline_end(state.flows_began, pace_s, first_chunk_s);
}

}  // namespace

PipelineChunk::PipelineChunk(const PartContext& ctx, double bytes)
    : costs(ctx.instance.costs),
      count(pipeline_chunks(ctx.options, bytes)),
      wire_bytes(bytes / count / costs.bandwidth_factor),
      reduce_s(reduction_time_s(ctx.options, bytes / count)) {}

double PipelineChunk::step_s(int sharers, double bandwidth_Bps, double latency_s, HopKind kind) const {
  return sharers * wire_bytes / bandwidth_Bps + std::max(latency_s, costs.hop_latency(kind));
}

void set_tree_edges(BinaryTree& tree, const std::function<TreeEdge(int from, int to)>& edge) {
  const size_t p = tree.parent.size();
  tree.up_kind.assign(p, HopKind::nvlink);
  tree.up_latency_s.assign(p, 0);
  tree.up_bandwidth_Bps.assign(p, 0);
  for (size_t r = 0; r < p; ++r)
    if (const int parent = tree.parent[r]; parent >= 0) {
      const TreeEdge e = edge(static_cast<int>(r), parent);
      tree.up_kind[r] = e.kind;
      tree.up_latency_s[r] = e.latency_s;
      tree.up_bandwidth_Bps[r] = e.bandwidth_Bps;
    }
}

void set_channel_sharing(std::vector<BinaryTree>& trees) {
  for (size_t first = 0; first < trees.size(); first += 2) {
    const size_t last = std::min(first + 2, trees.size());
    const size_t p = trees[first].parent.size();
    // Per rank: chain edges to a parent and to children over the channel's trees (the chains
    // coincide and start together); inter-node edges to children in each tree alone (the mirrored
    // node trees put a node at different depths, so their first chunks pass at different times).
    std::vector<int> chain_up(p, 0), chain_down(p, 0);
    for (size_t t = first; t < last; ++t)
      for (size_t r = 0; r < p; ++r)
        if (const int parent = trees[t].parent[r]; parent >= 0 && trees[t].up_kind[r] != HopKind::net) {
          chain_up[r] += 1;
          chain_down[size_t(parent)] += 1;
        }
    for (size_t t = first; t < last; ++t) {
      auto& tree = trees[t];
      tree.up_sharers.assign(p, 1);
      for (size_t r = 0; r < p; ++r) {
        const int parent = tree.parent[r];
        if (parent < 0) continue;
        if (tree.up_kind[r] != HopKind::net) {
          tree.up_sharers[r] = std::max(chain_up[r], chain_down[size_t(parent)]);
          continue;
        }
        int net_children = 0;
        for (int child : tree.children[size_t(parent)])
          net_children += tree.up_kind[size_t(child)] == HopKind::net;
        tree.up_sharers[r] = net_children;
      }
    }
  }
}

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
  return build_nccl_trees(spec, channels, node_double_tree(spec.nodes));
}

std::vector<BinaryTree> build_nccl_trees(const platform::PlatformSpec& spec, int channels,
                                         const std::array<BinaryTree, 2>& node_trees) {
  const int g = spec.gpus_per_node, nodes = spec.nodes, p = spec.total_gpus();
  const auto cycle = best_intra_node_cycle(spec);
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
  const PipelineChunk chunk(ctx, bytes);
  const int chunks = chunk.count;
  const auto& children = tree.children[size_t(ctx.rank)];
  const int parent = tree.parent[size_t(ctx.rank)];
  const double reduce_s = chunk.reduce_s * static_cast<double>(children.size());
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
      ctx.send_async(parent, tree_up_channel(tree_index), chunk.wire_bytes)->wait();
    } else {
      ctx.instance.root_reduced(tree_index)->release();  // root: chunk c fully reduced
    }
  }
}

void run_tree_broadcast(const PartContext& ctx, const BinaryTree& tree, int tree_index, double bytes) {
  const PipelineChunk chunk(ctx, bytes);
  const int chunks = chunk.count;
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
      sends.push_back(ctx.send_async(child, tree_down_channel(tree_index), chunk.wire_bytes));
    for (auto& send : sends) send->wait();
  }
}

void run_coarse_trees(const PartContext& ctx, const std::vector<BinaryTree>& trees, double bytes,
                      const std::array<BinaryTree, 2>* represented) {
  const int p = static_cast<int>(trees.front().parent.size());
  const int rank = ctx.rank;
  const double wire = bytes / ctx.instance.costs.bandwidth_factor;
  // Every tree's flows at this rank, and where to note the end of the ones the model times.
  std::vector<sg4::CommPtr> flows;
  std::vector<std::array<double*, 2>> note_end;
  auto add = [&](sg4::CommPtr flow, double* end, double* sibling_end = nullptr) {
    flows.push_back(std::move(flow));
    note_end.push_back({end, sibling_end});
  };
  // The two trees of a channel share their chains: a chain edge both have (same rank, same
  // parent) carries both trees' data as one flow of twice the bytes, on the first tree's
  // mailboxes. Equal flows on one route share it equally, so the merged flow ends when the two
  // would have where they are alone on their bottleneck (a chain link; a flow to the NIC shares a
  // head's PCIe link with it, where the NIC, not PCIe, is the bottleneck on every preset); the
  // solver sees half the flows. Edges between nodes stay one flow per tree, as NCCL's connections
  // are: such an edge shares its NIC with the node's other edges, where one merged flow would
  // count as one sharer (only 3 nodes have an edge both trees share; a folded pair's trees have
  // the same net edges, which stand for different nodes' edges: folded_trees.hpp).
  auto shared_chain_edge = [&](int t, int child, int parent) {
    return trees[size_t(t)].up_kind[size_t(child)] != HopKind::net &&
           trees[size_t(t % 2 == 0 ? t + 1 : t - 1)].parent[size_t(child)] == parent;
  };
  auto in_sibling = [&](int t, int child, int parent) {
    return t % 2 == 1 && shared_chain_edge(t, child, parent);
  };
  // A tree moves a chunk up only once every child's chunk has come (the parent reduces them), and
  // each of NCCL's connections buffers NCCL_STEPS chunks: an early subtree runs ahead by a few
  // chunks, not by the whole message. So the edges' flows start when the last rank has arrived,
  // together, as they do when every rank arrives at once. (Started one by one as ranks arrive, the
  // tree's flows, coupled through the NICs they share, cost the max-min solver a re-solve of the
  // whole tree per arrival: quadratic in the GPUs with jitter.)
  ctx.instance.phase_end(tree_up_channel(0), kTreeArrivalPhase, 0, p)->wait();
  for (int t = 0; t < static_cast<int>(trees.size()); ++t)
    ctx.instance.coarse_tree(t, p).flows_began = sg4::Engine::get_clock();  // the last arrival
  for (int t = 0; t < static_cast<int>(trees.size()); ++t) {
    const auto& tree = trees[size_t(t)];
    const bool has_sibling = t % 2 == 0 && size_t(t + 1) < trees.size();
    auto& state = ctx.instance.coarse_tree(t, p);
    auto* sibling = has_sibling ? &ctx.instance.coarse_tree(t + 1, p) : nullptr;
    const int parent = tree.parent[size_t(rank)];
    auto merged = [&](int child, int parent_of_child) {
      return has_sibling && shared_chain_edge(t, child, parent_of_child);
    };
    for (int child : tree.children[size_t(rank)])
      if (!in_sibling(t, child, rank)) add(ctx.receive_async(tree_up_channel(t)), nullptr);
    if (parent >= 0 && !in_sibling(t, rank, parent)) {
      const bool both = merged(rank, parent);
      add(ctx.send_async(parent, tree_up_channel(t), both ? 2 * wire : wire), &state.up_done[size_t(rank)],
          both ? &sibling->up_done[size_t(rank)] : nullptr);
      add(ctx.receive_async(tree_down_channel(t)), &state.down_done[size_t(rank)],
          both ? &sibling->down_done[size_t(rank)] : nullptr);
    }
    for (int child : tree.children[size_t(rank)])
      if (!in_sibling(t, child, rank))
        add(ctx.send_async(child, tree_down_channel(t), merged(child, rank) ? 2 * wire : wire), nullptr);
  }
  for (size_t k = 0; k < flows.size(); ++k) {
    flows[k]->wait();
    for (double* end : note_end[k])
      if (end) *end = flows[k]->get_finish_time();
  }
  ctx.instance.phase_end(tree_up_channel(0), 0, 0, p)->wait();  // every rank's flows are done
  double end = 0;
  for (int t = 0; t < static_cast<int>(trees.size()); ++t) {
    auto& state = ctx.instance.coarse_tree(t, p);
    if (state.ends_at < 0)
      state.ends_at = represented ? folded_pipeline_end(ctx, trees[size_t(t)], *represented, t, state, bytes)
                                  : coarse_pipeline_end(ctx, trees[size_t(t)], state, bytes);
    end = std::max(end, state.ends_at);
  }
  const double delay = end - sg4::Engine::get_clock();
  if (delay > 0) sg4::this_actor::sleep_for(delay);
}

}  // namespace dasim::collectives
