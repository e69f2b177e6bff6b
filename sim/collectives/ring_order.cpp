#include "collectives/ring_order.hpp"

#include "platform/node_routes.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <string>

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

namespace {

// A flat ring over every node: each node's GPUs in `cycle` order from `rotation`, nodes in order.
std::vector<int> flat_ring(const platform::PlatformSpec& spec, const std::vector<int>& cycle, int rotation) {
  const int g = spec.gpus_per_node;
  std::vector<int> ranks;
  ranks.reserve(static_cast<size_t>(spec.total_gpus()));
  for (int n = 0; n < spec.nodes; ++n)
    for (int j = 0; j < g; ++j) ranks.push_back(n * g + cycle[size_t((rotation + j) % g)]);
  return ranks;
}

// One flat ring per cycle: channel k runs through every node along cycles[k], entered and left at
// a rotation of it. The rotations are chosen together so that rings leave and enter through the
// NICs, and through the GPUs' own PCIe links, as evenly as possible: the least sum of squared
// ring counts per NIC and per GPU, each way (the first such choice in order). Exhaustive up to
// 2^20 choices, else channel after channel.
std::vector<std::vector<int>> orders_on_cycles(const platform::PlatformSpec& spec,
                                               const std::vector<std::vector<int>>& cycles) {
  const int g = spec.gpus_per_node;
  const size_t k = cycles.size();
  auto exit_gpu = [&](size_t c, int r) { return cycles[c][size_t((r + g - 1) % g)]; };
  auto entry_gpu = [&](size_t c, int r) { return cycles[c][size_t(r)]; };
  // Counts of rings leaving and entering per NIC and per GPU for a choice of rotations.
  auto cost_of = [&](const std::vector<int>& rotation, size_t upto) {
    std::vector<long> nic_out(spec.nics.size(), 0), nic_in(spec.nics.size(), 0), gpu_out(size_t(g), 0),
        gpu_in(size_t(g), 0);
    for (size_t c = 0; c < upto; ++c) {
      const int x = exit_gpu(c, rotation[c]), e = entry_gpu(c, rotation[c]);
      ++nic_out[size_t(platform::nic_of_gpu(spec, x))];
      ++nic_in[size_t(platform::nic_of_gpu(spec, e))];
      ++gpu_out[size_t(x)];
      ++gpu_in[size_t(e)];
    }
    long cost = 0;
    for (auto* counts : {&nic_out, &nic_in, &gpu_out, &gpu_in})
      for (long n : *counts) cost += n * n;
    return cost;
  };
  std::vector<int> rotation(k, 0), best(k, 0);
  double choices = 1;
  for (size_t c = 0; c < k; ++c) choices *= g;
  if (choices <= double(1 << 20)) {
    long best_cost = -1;
    while (true) {
      const long cost = cost_of(rotation, k);
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best = rotation;
      }
      size_t c = k;  // next choice, the last channel's rotation counting fastest
      while (c > 0 && ++rotation[c - 1] == g) rotation[--c] = 0;
      if (c == 0) break;
    }
  } else {
    for (size_t c = 0; c < k; ++c) {
      long pick_cost = -1;
      for (int r = 0; r < g; ++r) {
        rotation[c] = r;
        const long cost = cost_of(rotation, c + 1);
        if (pick_cost < 0 || cost < pick_cost) {
          pick_cost = cost;
          best[c] = r;
        }
      }
      rotation[c] = best[c];
    }
  }
  std::vector<std::vector<int>> orders;
  for (size_t c = 0; c < k; ++c) orders.push_back(flat_ring(spec, cycles[c], best[c]));
  return orders;
}

}  // namespace

std::vector<std::vector<int>> multi_ring_orders(const platform::PlatformSpec& spec, int channels) {
  const int g = spec.gpus_per_node;
  const size_t nics = spec.nics.size();
  if (channels > 1) {
    const auto rings = intra_node_rings(spec, channels);
    if (rings.beats_one_ring) return orders_on_cycles(spec, rings.cycles);
  }
  const auto cycle = best_intra_node_cycle(spec);
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
  for (int k = 0; k < channels; ++k)
    orders.push_back(flat_ring(spec, cycle, rotations[size_t(k) % rotations.size()]));
  return orders;
}

namespace {

// Every directed link the hop a -> b crosses, as an index into `capacity_Bps`.
struct LinkTable {
  std::vector<double> capacity_Bps;
  std::vector<std::vector<std::vector<int>>> hop_links;  // [a][b]
};

LinkTable link_table(const platform::PlatformSpec& spec) {
  const int g = spec.gpus_per_node;
  LinkTable t;
  t.hop_links.assign(size_t(g), std::vector<std::vector<int>>(size_t(g)));
  std::map<std::string, int> index;
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b) {
      if (a == b) continue;
      for (const auto& ref : platform::gpu_to_gpu_route(spec, a, b)) {
        const std::string key = ref.name + (ref.up ? ">" : "<");
        auto [it, added] = index.emplace(key, int(t.capacity_Bps.size()));
        if (added) t.capacity_Bps.push_back(platform::node_link_spec(spec, ref).achieved_Bps());
        t.hop_links[size_t(a)][size_t(b)].push_back(it->second);
      }
    }
  return t;
}

// The least rate a ring gets when every ring carries an equal share: the busiest link's rate
// over the rings crossing it.
double per_ring_Bps(const LinkTable& t, const std::vector<int>& load) {
  double rate = std::numeric_limits<double>::infinity();
  for (size_t l = 0; l < load.size(); ++l)
    if (load[l] > 0) rate = std::min(rate, t.capacity_Bps[l] / load[l]);
  return rate;
}

}  // namespace

IntraNodeRings intra_node_rings(const platform::PlatformSpec& spec, int channels) {
  const int g = spec.gpus_per_node;
  const auto best = best_intra_node_cycle(spec);
  IntraNodeRings single{{best}, 0};
  if (g < 2) return single;
  const LinkTable t = link_table(spec);
  auto cycle_links = [&](const std::vector<int>& cycle) {
    std::vector<int> links;
    for (size_t i = 0; i < cycle.size(); ++i)
      for (int l : t.hop_links[size_t(cycle[i])][size_t(cycle[(i + 1) % cycle.size()])]) links.push_back(l);
    return links;
  };
  {
    std::vector<int> load(t.capacity_Bps.size(), 0);
    for (int l : cycle_links(best)) ++load[size_t(l)];
    single.aggregate_Bps = per_ring_Bps(t, load);
  }
  // Every ring leaves each GPU once, over the first link of one of its routes out, so no set of
  // rings beats what those links carry out of the tightest GPU. Where one ring already reaches
  // that (a whole NVSwitch port, a whole PCIe link), there is nothing to search for.
  double out_bound_Bps = std::numeric_limits<double>::infinity();
  for (int a = 0; a < g; ++a) {
    std::vector<int> first_links;
    for (int b = 0; b < g; ++b)
      if (a != b) first_links.push_back(t.hop_links[size_t(a)][size_t(b)].front());
    std::sort(first_links.begin(), first_links.end());
    first_links.erase(std::unique(first_links.begin(), first_links.end()), first_links.end());
    double out_Bps = 0;
    for (int l : first_links) out_Bps += t.capacity_Bps[size_t(l)];
    out_bound_Bps = std::min(out_bound_Bps, out_Bps);
  }
  if (g <= 3 || g > 9 || single.aggregate_Bps >= out_bound_Bps * (1 - 1e-9)) {
    if (channels > 1) single.cycles.assign(size_t(channels), best);
    return single;
  }
  // Each candidate cycle as (link, times it crosses it) pairs.
  std::vector<std::vector<int>> candidates;
  std::vector<std::vector<std::pair<int, int>>> candidate_links;
  std::vector<int> order(static_cast<size_t>(g));
  std::iota(order.begin(), order.end(), 0);
  do {
    candidates.push_back(order);
    std::map<int, int> crossings;
    for (int l : cycle_links(order)) ++crossings[l];
    candidate_links.emplace_back(crossings.begin(), crossings.end());
  } while (std::next_permutation(order.begin() + 1, order.end()));

  // NCCL's search in spirit: pick a rate per ring, then fit as many rings as the links allow at
  // that rate (each ring takes the rate from every link it crosses, once per crossing), by
  // depth-first search over the cycles, highest-capacity cycles first; the rate and count of most
  // bandwidth win. The search is bounded by a count of steps, not by time, so it is deterministic.
  std::vector<double> cycle_rate(candidates.size(), std::numeric_limits<double>::infinity());
  for (size_t c = 0; c < candidates.size(); ++c)
    for (const auto& [l, times] : candidate_links[c])
      cycle_rate[c] = std::min(cycle_rate[c], t.capacity_Bps[size_t(l)] / times);
  std::vector<size_t> by_capacity(candidates.size());
  std::iota(by_capacity.begin(), by_capacity.end(), 0);
  std::stable_sort(by_capacity.begin(), by_capacity.end(),
                   [&](size_t a, size_t b) { return cycle_rate[a] > cycle_rate[b]; });
  std::vector<double> rates;
  const int most = channels > 0 ? channels : 2 * g;
  for (double capacity : t.capacity_Bps)
    for (int m = 1; m <= most; ++m) rates.push_back(capacity / m);
  std::sort(rates.begin(), rates.end(), std::greater<>());
  rates.erase(std::unique(rates.begin(), rates.end()), rates.end());

  IntraNodeRings found = single;
  long steps_left = 4'000'000;
  for (double rate : rates) {
    if (rate * most <= found.aggregate_Bps * (1 + 1e-9)) break;  // no count at this rate can do better
    // How many rings each link still carries at this rate: whole numbers, so taking a ring and
    // giving it back leaves them exactly as they were.
    std::vector<int> room(t.capacity_Bps.size());
    for (size_t l = 0; l < room.size(); ++l) room[l] = int(std::floor(t.capacity_Bps[l] / rate * (1 + 1e-9)));
    std::vector<size_t> stack, best_stack;
    // Rings that fit, each at least as far down the order as the one before (a set, not orderings).
    auto fits = [&](size_t c) {
      for (const auto& [l, times] : candidate_links[c])
        if (room[size_t(l)] < times) return false;
      return true;
    };
    auto take = [&](size_t c, int sign) {
      for (const auto& [l, times] : candidate_links[c]) room[size_t(l)] -= sign * times;
    };
    std::function<void(size_t)> search = [&](size_t from) {
      if (stack.size() > best_stack.size()) best_stack = stack;
      if (int(stack.size()) == most) return;
      for (size_t i = from; i < by_capacity.size() && steps_left > 0; ++i) {
        --steps_left;
        const size_t c = by_capacity[i];
        if (!fits(c)) continue;
        take(c, 1);
        stack.push_back(c);
        search(i);
        stack.pop_back();
        take(c, -1);
        if (int(best_stack.size()) == most) return;
      }
    };
    search(0);
    const double aggregate = double(best_stack.size()) * rate;
    const bool count_allowed = channels <= 0 || int(best_stack.size()) == channels;
    if (count_allowed && aggregate > found.aggregate_Bps * (1 + 1e-9)) {
      found.cycles.clear();
      for (size_t c : best_stack) found.cycles.push_back(candidates[c]);
      found.aggregate_Bps = aggregate;
      found.beats_one_ring = true;
    }
  }
  // Asked for more rings than fit side by side: the best set, repeated.
  if (channels > 0 && int(found.cycles.size()) < channels) {
    const auto base = found.cycles;
    for (size_t i = 0; int(found.cycles.size()) < channels; ++i)
      found.cycles.push_back(base[i % base.size()]);
  }
  return found;
}

}  // namespace dasim::collectives
