#include "collectives/folded_trees.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

namespace dasim::collectives {

std::array<BinaryTree, 2> exchange_pair_trees(const std::array<BinaryTree, 2>& represented) {
  int busiest = 0;  // the most edges a node has over both trees
  const size_t n = represented[0].parent.size();
  for (size_t node = 0; node < n; ++node) {
    int edges = 0;
    for (const auto& t : represented)
      edges += (t.parent[node] >= 0) + static_cast<int>(t.children[node].size());
    busiest = std::max(busiest, edges);
  }
  if (busiest < 2 || busiest > 4)
    throw std::logic_error(fmt::format("a double binary tree whose busiest node has {} edges", busiest));
  std::array<BinaryTree, 2> trees;
  for (int k = 0; k < 2; ++k) {
    auto& t = trees[size_t(k)];
    const int edges = k == 0 ? (busiest + 1) / 2 : busiest / 2;
    t.parent = {1, edges == 2 ? 0 : -1};  // node 0's head a child of node 1's, and the reverse
    t.children = {edges == 2 ? std::vector<int>{1} : std::vector<int>{}, {0}};
    t.depth = edges == 2 ? 0 : 1;  // a cycle has no depth (folded_pipeline_end uses the represented)
  }
  return trees;
}

namespace {

// Built node 0's chain, head first (built node 1's is the same, `g` ranks on).
std::vector<int> built_chain(const BinaryTree& built, int g) {
  std::vector<int> chain;
  for (int r = 0; r < g && chain.empty(); ++r)
    if (built.parent[size_t(r)] >= g) chain.push_back(r);
  if (chain.empty()) throw std::logic_error("a folded tree without a head on its first node");
  for (bool more = true; more;) {
    more = false;
    for (int child : built.children[size_t(chain.back())])
      if (child < g) {
        chain.push_back(child);
        more = true;
        break;
      }
  }
  return chain;
}

}  // namespace

// The sum coarse_pipeline_end takes over a tree's ranks, taken over the represented nodes: a
// rank's first-chunk path is its node head's plus its chain's, the same at every node, so the
// slowest path ends at a chain's tail below the slowest head; the pace is the slowest edge's,
// which the built edge of its position (chain) or kind (net) has run.
double folded_pipeline_end(const PartContext& ctx, const BinaryTree& built,
                           const std::array<BinaryTree, 2>& represented, int tree_index,
                           const CollectiveInstance::CoarseTree& state, double bytes) {
  const int g = static_cast<int>(built.parent.size()) / 2;
  const auto& nodes = represented[size_t(tree_index % 2)];
  const int n = static_cast<int>(nodes.parent.size());
  const PipelineChunk chunk(ctx, bytes);
  auto flow_s = [&](const std::vector<double>& done, int rank) {
    return done[size_t(rank)] - state.flows_began - built.up_latency_s[size_t(rank)];
  };
  const auto chain = built_chain(built, g);
  double pace_s = 0, chain_up_s = 0, chain_down_s = 0;
  for (size_t i = 1; i < chain.size(); ++i) {
    const int r = chain[i];
    const double reduce_s = i + 1 < chain.size() ? chunk.reduce_s : 0;  // the next GPU's chunk
    const double step = chunk.step_s(built.up_sharers[size_t(r)], built.up_bandwidth_Bps[size_t(r)],
                                     built.up_latency_s[size_t(r)], built.up_kind[size_t(r)]);
    chain_up_s += step + reduce_s;
    chain_down_s += step;
    for (int rank : {r, r + g})
      pace_s = std::max({pace_s, flow_s(state.up_done, rank) / chunk.count + reduce_s,
                         flow_s(state.down_done, rank) / chunk.count});
  }
  const int head = chain.front();
  double net_up_flow_s = 0, net_down_flow_s = 0;
  for (int rank : {head, head + g}) {
    net_up_flow_s = std::max(net_up_flow_s, flow_s(state.up_done, rank));
    net_down_flow_s = std::max(net_down_flow_s, flow_s(state.down_done, rank));
  }
  const bool chain_child = chain.size() > 1;
  auto reduce_s = [&](int node) {
    return chunk.reduce_s * static_cast<double>(chain_child + nodes.children[size_t(node)].size());
  };
  // Heads, parents first: the first chunk's path from the root, up and down.
  std::vector<double> up(size_t(n), -1), down(size_t(n), -1);
  std::function<void(int)> cost = [&](int node) {
    if (up[size_t(node)] >= 0) return;
    const int parent = nodes.parent[size_t(node)];
    if (parent < 0) {
      up[size_t(node)] = reduce_s(node);
      down[size_t(node)] = 0;
      pace_s = std::max(pace_s, up[size_t(node)]);
      return;
    }
    cost(parent);
    const int sharers = static_cast<int>(nodes.children[size_t(parent)].size());
    const double step = chunk.step_s(sharers, built.up_bandwidth_Bps[size_t(head)],
                                     built.up_latency_s[size_t(head)], HopKind::net);
    up[size_t(node)] = up[size_t(parent)] + step + reduce_s(node);
    down[size_t(node)] = down[size_t(parent)] + step;
    pace_s = std::max({pace_s, net_up_flow_s / chunk.count + reduce_s(node), net_down_flow_s / chunk.count});
  };
  for (int node = 0; node < n; ++node) cost(node);
  const double first_chunk_s = *std::max_element(up.begin(), up.end()) + chain_up_s +
                               *std::max_element(down.begin(), down.end()) + chain_down_s;
  return chunk.pipeline_end(state.flows_began, pace_s, first_chunk_s);
}

}  // namespace dasim::collectives
