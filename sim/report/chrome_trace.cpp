#include "report/chrome_trace.hpp"

#include <fmt/format.h>

namespace dasim::report {

nlohmann::json chrome_trace_events(const std::vector<engine::RankTrace>& trace, int gpus_per_node) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& rank_trace : trace) {
    const int rank = rank_trace.rank;
    const int node = rank / gpus_per_node, gpu = rank % gpus_per_node;
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", node},
                      {"tid", gpu},
                      {"args", {{"name", fmt::format("rank {} (n{}g{})", rank, node, gpu)}}}});
    for (const auto& e : rank_trace.events) {
      // Collectives overlap compute on the same GPU: put them on a second row of the process.
      int tid = e.category == "comm" ? gpu + 1000 : gpu;
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
