#include "scenario/shards.hpp"

#include "common/errors.hpp"
#include "scenario/limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

namespace dasim::scenario {
namespace {

bool parse_int(std::string_view text, int& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  ShardSpec shard;
  if (slash == std::string::npos || !parse_int(std::string_view(text).substr(0, slash), shard.index) ||
      !parse_int(std::string_view(text).substr(slash + 1), shard.count) || shard.count < 1 ||
      shard.count > 100000 || shard.index < 0 || shard.index >= shard.count)
    throw InputError(
        fmt::format("--shard: expected I/N with 0 <= I < N <= 100000 (e.g. 0/4), got \"{}\"", text));
  return shard;
}

WorkOrder work_order(const Scenario& sc, const std::vector<Configuration>& configs) {
  WorkOrder w;
  for (const auto& c : configs) w.cost_s.push_back(estimated_wall_s(sc, c));
  w.largest_first.resize(configs.size());
  std::iota(w.largest_first.begin(), w.largest_first.end(), 0);
  std::stable_sort(w.largest_first.begin(), w.largest_first.end(),
                   [&](size_t a, size_t b) { return w.cost_s[a] > w.cost_s[b]; });
  return w;
}

std::vector<std::vector<size_t>> split_into_shards(const Scenario& sc,
                                                   const std::vector<Configuration>& configs, int shards) {
  const WorkOrder order = work_order(sc, configs);
  const auto& cost = order.cost_s;
  std::vector<std::vector<size_t>> out(static_cast<size_t>(shards));
  std::vector<double> load(static_cast<size_t>(shards), 0.0);
  for (size_t i : order.largest_first) {
    const size_t lightest = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    out[lightest].push_back(i);
    load[lightest] += cost[i];
  }
  for (auto& shard : out) std::sort(shard.begin(), shard.end());
  return out;
}

}  // namespace dasim::scenario
