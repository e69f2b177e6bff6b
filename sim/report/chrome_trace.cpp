#include "report/chrome_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

namespace dasim::report {

namespace {

// Collectives of one rank overlap each other (buckets in flight together, DaSGD's average over a
// step), and Perfetto draws partly overlapping slices of one track wrongly: each collective goes
// to the first of the rank's collective rows that is free by its start (greedy, in start order).
struct CollectiveRows {
  std::vector<int> row;  // per event (0 for compute events)
  int count = 0;         // rows used: 0 without collectives
};
CollectiveRows collective_rows(const std::vector<workers::TraceEvent>& events) {
  std::vector<size_t> order;
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i].category == "comm") order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return events[a].begin < events[b].begin; });
  CollectiveRows rows{std::vector<int>(events.size(), 0), 0};
  std::vector<double> free_at;  // per row, when its last collective ends
  for (size_t i : order) {
    size_t r = 0;
    while (r < free_at.size() && free_at[r] > events[i].begin) ++r;
    if (r == free_at.size()) free_at.push_back(0);
    free_at[r] = events[i].end;
    rows.row[i] = static_cast<int>(r);
  }
  rows.count = static_cast<int>(free_at.size());
  return rows;
}

}  // namespace

nlohmann::json chrome_trace_events(const std::vector<engine::RankTrace>& trace, int gpus_per_node) {
  nlohmann::json events = nlohmann::json::array();
  // A thread's name, and where viewers put it: each GPU's collective rows right below its compute
  // row (sort index 100 x gpu, then + 1, + 2, ...), not all compute rows first.
  auto name_thread = [&](int pid, int tid, std::string name, int sort_index) {
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"sort_index", sort_index}}}});
  };
  std::set<int> named_nodes;
  for (const auto& rank_trace : trace) {
    const int rank = rank_trace.rank;
    const int node = rank / gpus_per_node, gpu = rank % gpus_per_node;
    if (named_nodes.insert(node).second)
      events.push_back({{"name", "process_name"},
                        {"ph", "M"},
                        {"pid", node},
                        {"args", {{"name", fmt::format("node {}", node)}}}});
    name_thread(node, gpu, fmt::format("rank {} (n{}g{})", rank, node, gpu), 100 * gpu);
    const auto rows = collective_rows(rank_trace.events);
    // Collectives overlap compute on the same GPU: rows 1000 + gpu, 2000 + gpu, ... of its node.
    for (int r = 0; r < rows.count; ++r)
      name_thread(node, gpu + 1000 * (r + 1),
                  r == 0 ? fmt::format("rank {} collectives", rank)
                         : fmt::format("rank {} collectives ({})", rank, r + 1),
                  100 * gpu + r + 1);
    for (size_t i = 0; i < rank_trace.events.size(); ++i) {
      const auto& e = rank_trace.events[i];
      const int tid = e.category == "comm" ? gpu + 1000 * (rows.row[i] + 1) : gpu;
      nlohmann::json event{{"name", e.name},
                           {"cat", e.category},
                           {"ph", "X"},
                           {"pid", node},
                           {"tid", tid},
                           {"ts", e.begin * 1e6},
                           {"dur", (e.end - e.begin) * 1e6}};
      if (e.category == "comm") event["args"] = {{"bytes", e.bytes}, {"algorithm", e.algorithm}};
      events.push_back(std::move(event));
    }
  }
  return events;
}

}  // namespace dasim::report
