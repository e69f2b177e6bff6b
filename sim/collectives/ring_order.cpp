#include "collectives/ring_order.hpp"

#include "platform/node_routes.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace dasim::collectives {

std::vector<int> best_intra_node_cycle(const platform::PlatformSpec& spec) {
  const int g = spec.gpus_per_node;
  std::vector<int> order(static_cast<size_t>(g));
  std::iota(order.begin(), order.end(), 0);
  if (g <= 3 || g > 9) return order;
  std::vector<std::vector<double>> bw(g, std::vector<double>(g, 0));
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b)
      if (a != b)
        bw[a][b] = platform::route_figures(spec, platform::gpu_to_gpu_route(spec, a, b)).bandwidth_Bps;
  std::vector<int> best = order;
  double best_min = -1, best_sum = -1;
  // Fix GPU 0 first; permute the rest. Maximise the slowest hop, then the total (ties broken by
  // the first permutation found, which keeps the choice deterministic).
  do {
    double slowest = std::numeric_limits<double>::infinity(), sum = 0;
    for (int i = 0; i < g; ++i) {
      double b = bw[order[i]][order[(i + 1) % g]];
      slowest = std::min(slowest, b);
      sum += b;
    }
    if (slowest > best_min || (slowest == best_min && sum > best_sum)) {
      best_min = slowest;
      best_sum = sum;
      best = order;
    }
  } while (std::next_permutation(order.begin() + 1, order.end()));
  return best;
}

std::vector<std::vector<int>> multi_ring_orders(const platform::PlatformSpec& spec, int channels) {
  const auto cycle = best_intra_node_cycle(spec);
  const int g = spec.gpus_per_node;
  const size_t nics = spec.nics.size();
  // Rotation i: the node's ring segment runs cycle[i], ..., cycle[i-1]; it is left from
  // cycle[i-1] and the next node is entered at cycle[i].
  auto exit_nic = [&](int i) { return size_t(platform::nic_of_gpu(spec, cycle[size_t((i + g - 1) % g)])); };
  auto entry_nic = [&](int i) { return size_t(platform::nic_of_gpu(spec, cycle[size_t(i)])); };
  // Distinct rotations when there are enough; the set whose rings spread over the NICs most
  // evenly (least sum of squared ring counts leaving and entering each NIC). Exhaustive: at most
  // 2^9 subsets for the node sizes ring_order handles.
  const int distinct = std::min(channels, g);
  std::vector<int> rotations;
  if (g <= 9) {
    long best_cost = -1;
    for (unsigned mask = 0; mask < (1u << g); ++mask) {
      if (__builtin_popcount(mask) != distinct) continue;
      std::vector<long> out(nics, 0), in(nics, 0);
      for (int i = 0; i < g; ++i)
        if (mask & (1u << i)) {
          ++out[exit_nic(i)];
          ++in[entry_nic(i)];
        }
      long cost = 0;
      for (size_t n = 0; n < nics; ++n) cost += out[n] * out[n] + in[n] * in[n];
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        rotations.clear();
        for (int i = 0; i < g; ++i)
          if (mask & (1u << i)) rotations.push_back(i);
      }
    }
  } else {
    for (int i = 0; i < distinct; ++i) rotations.push_back(i * g / distinct);
  }
  std::vector<std::vector<int>> orders;
  for (int k = 0; k < channels; ++k) {
    const int rotation = rotations[size_t(k) % rotations.size()];
    std::vector<int> ranks;
    ranks.reserve(static_cast<size_t>(spec.total_gpus()));
    for (int n = 0; n < spec.nodes; ++n)
      for (int j = 0; j < g; ++j) ranks.push_back(n * g + cycle[size_t((rotation + j) % g)]);
    orders.push_back(std::move(ranks));
  }
  return orders;
}

}  // namespace dasim::collectives
