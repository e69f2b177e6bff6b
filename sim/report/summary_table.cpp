#include "report/summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace dasim::report {
namespace {

// A sweep column's value as people quote it: "100 Gb/s" for inter_node_bandwidth_Bps = 1.25e10,
// "NIC 25 Gb/s", "fabric latency 2 us", "host input 6000/s"; any other column as key=value.
std::string sweep_phrase(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size()) return fmt::format("{}={}", key, value);
  auto link = [&](const std::string& suffix) {
    std::string name = key.substr(0, key.size() - suffix.size());
    std::replace(name.begin(), name.end(), '_', ' ');
    return name;
  };
  if (key.ends_with("_bandwidth_Bps")) {
    const std::string name = link("_bandwidth_Bps");
    const std::string rate = fmt::format("{:.4g} Gb/s", v * 8 / 1e9);
    return name == "inter node" ? rate : fmt::format("{} {}", name, rate);
  }
  if (key.ends_with("_latency_s")) {
    const std::string name = link("_latency_s");
    if (v >= 1) return fmt::format("{} latency {:.4g} s", name, v);
    if (v >= 1e-3) return fmt::format("{} latency {:.4g} ms", name, v * 1e3);
    return fmt::format("{} latency {:.4g} us", name, v * 1e6);
  }
  if (key == "host_input_samples_per_s")  // 1234567 as 1.235M, not 1.23457e+06
    return v < 1e6 ? fmt::format("host input {:.6g}/s", v) : fmt::format("host input {:.4g}M/s", v / 1e6);
  return fmt::format("{}={}", key, value);
}

// schedule_detail split into the schedule without its gradient accumulation and the
// accumulation's ",accumulate=A" ("" without): describe() writes it as the last option, alone in
// "sgd(accumulate=4)", after others in "sgd(no overlap,accumulate=4)" or "local_sgd(tau=4,accumulate=2)".
struct DetailParts {
  std::string plain, accumulation;
};
DetailParts split_accumulation(const std::string& detail) {
  const auto at = detail.find("accumulate=");
  if (at == std::string::npos || at == 0) return {detail, ""};
  const auto end = detail.find_first_of(",)", at);
  const bool only_option = detail[at - 1] == '(';  // its parentheses go with it
  return {detail.substr(0, at - 1) + detail.substr(only_option ? end + 1 : end),
          "," + detail.substr(at, end - at)};
}

// sgd with its options (no overlap, bucket_view, fsdp, accumulate=A), local SGD and DaSGD in the
// table's short forms; the DiLoCo family with every parameter (fragments, overlap, outer
// optimizer, compression all change the numbers). Without `with_accumulation` the label leaves
// the accumulation out: one schedule under a global batch accumulates differently at every GPU
// count, and its rows are one group of the table.
std::string schedule_label(const results::ResultRow& r, bool precisions_vary, bool batches_vary,
                           bool with_accumulation = true) {
  const auto [plain, accumulation] = split_accumulation(r.schedule_detail);
  const std::string& detail = with_accumulation ? r.schedule_detail : plain;
  const std::string shown = with_accumulation ? accumulation : "";
  std::string label = r.schedule == "sgd" && !detail.empty() ? detail : r.schedule;
  if (r.schedule == "local_sgd") label = fmt::format("local_sgd(t={}{})", r.tau, shown);
  if (r.schedule == "dasgd") label = fmt::format("dasgd(t={},d={}{})", r.tau, r.delay, shown);
  if (r.schedule == "diloco" || r.schedule == "streaming_diloco") label = detail;
  for (const auto& [key, value] : r.extra) label += " " + sweep_phrase(key, value);
  if (precisions_vary) label += " " + r.precision;
  if (batches_vary) label += fmt::format(" b={}", r.batch_per_gpu);
  return label;
}

template <typename Field>
bool varies(const std::vector<results::ResultRow>& rows, Field field) {
  return std::any_of(rows.begin(), rows.end(),
                     [&](const auto& r) { return r.*field != rows.front().*field; });
}

}  // namespace

std::string summary_table(const std::vector<results::ResultRow>& rows, const std::vector<size_t>& numbers) {
  std::vector<std::string> labels;
  size_t width = 18;
  // A scenario that lists several precisions or batches: the label says which row is which.
  const bool precisions_vary = varies(rows, &results::ResultRow::precision);
  const bool batches_vary = varies(rows, &results::ResultRow::batch_per_gpu);
  for (const auto& r : rows) {
    labels.push_back(schedule_label(r, precisions_vary, batches_vary));
    width = std::max(width, labels.back().size());
  }
  // The compute slowdown (interference) has a column only when some row has one.
  const bool slowdown =
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.compute_slowdown_s > 0; });
  std::string out =
      fmt::format("{:>4} {:<12} {:<16} {:<{}} {:>6} {:>10} {:>9} {:>6} {:>11}", "#", "workload", "platform",
                  "schedule", width, "gpus", "iter_ms", "speedup", "eff", "compute_ms");
  if (slowdown) out += fmt::format(" {:>11}", "slowdown_ms");
  out += fmt::format(" {:>11} {:>11}", "comm_ms", "exposed_ms");
  // The wait for a loader slower than the step: a column only when some row has one.
  const bool input = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.input_wait_s > 0; });
  if (input) out += fmt::format(" {:>9}", "input_ms");
  // Time to accuracy has columns only when the scenario named a convergence model; a row the
  // model has no steps for shows "-", never 0.
  const bool to_target =
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !std::isnan(r.steps_to_target); });
  if (to_target) out += fmt::format(" {:>9} {:>12}", "steps", "to_target_s");
  out += "\n";
  std::string previous;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const std::string group = r.workload + r.platform +
                              schedule_label(r, precisions_vary, batches_vary, /*with_accumulation=*/false);
    if (!previous.empty() && group != previous) out += "\n";
    previous = group;
    // `#`: the configuration's number, what `--trace N` takes (rows are in configuration order).
    out += fmt::format("{:>4} {:<12} {:<16} {:<{}} {:>6} {:>10.2f} {:>9.1f} {:>6.3f} {:>11.2f}",
                       numbers.empty() ? i : numbers[i], r.workload, r.platform, labels[i], width, r.gpus,
                       r.iter_time_s * 1e3, r.speedup, r.efficiency, r.compute_s * 1e3);
    if (slowdown)
      out += fmt::format(" {:>11.2f}", r.compute_slowdown_s > 0 ? r.compute_slowdown_s * 1e3 : 0.0);
    out += fmt::format(" {:>11.2f} {:>11.2f}", r.comm_s * 1e3, r.exposed_comm_s * 1e3);
    if (input) out += fmt::format(" {:>9.2f}", r.input_wait_s > 0 ? r.input_wait_s * 1e3 : 0.0);
    if (to_target) {
      if (std::isnan(r.steps_to_target))
        out += fmt::format(" {:>9} {:>12}", "-", "-");
      else
        out += fmt::format(" {:>9.0f} {:>12.4g}", r.steps_to_target, r.time_to_target_s);
    }
    out += "\n";
  }
  return out;
}

}  // namespace dasim::report
