#include "report/summary_table.hpp"

#include <fmt/format.h>

namespace dasim::report {

std::string summary_table(const std::vector<results::ResultRow>& rows) {
  std::string out = fmt::format("{:<12} {:<16} {:<18} {:>6} {:>10} {:>9} {:>6} {:>11} {:>11} {:>11}\n",
                                "workload", "platform", "schedule", "gpus", "iter_ms", "speedup", "eff",
                                "compute_ms", "comm_ms", "exposed_ms");
  std::string previous;
  for (const auto& r : rows) {
    std::string schedule = r.schedule;
    if (r.schedule == "local_sgd") schedule = fmt::format("local_sgd(t={})", r.tau);
    if (r.schedule == "dasgd") schedule = fmt::format("dasgd(t={},d={})", r.tau, r.delay);
    for (const auto& [key, value] : r.extra) schedule += fmt::format(" {}={}", key, value);
    std::string group = r.workload + r.platform + schedule;
    if (!previous.empty() && group != previous) out += "\n";
    previous = group;
    out +=
        fmt::format("{:<12} {:<16} {:<18} {:>6} {:>10.2f} {:>9.1f} {:>6.3f} {:>11.2f} {:>11.2f} {:>11.2f}\n",
                    r.workload, r.platform, schedule, r.gpus, r.iter_time_s * 1e3, r.speedup, r.efficiency,
                    r.compute_s * 1e3, r.comm_s * 1e3, r.exposed_comm_s * 1e3);
  }
  return out;
}

}  // namespace dasim::report
