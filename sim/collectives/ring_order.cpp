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
      if (a != b) bw[a][b] = platform::route_figures(spec, platform::gpu_to_gpu_route(spec, a, b)).bandwidth_Bps;
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

std::vector<int> flat_ring_order(const platform::PlatformSpec& spec) {
  auto cycle = best_intra_node_cycle(spec);
  std::vector<int> ranks;
  ranks.reserve(static_cast<size_t>(spec.total_gpus()));
  for (int n = 0; n < spec.nodes; ++n)
    for (int local : cycle) ranks.push_back(n * spec.gpus_per_node + local);
  return ranks;
}

}  // namespace dasim::collectives
