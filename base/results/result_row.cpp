#include "results/result_row.hpp"

#include <fmt/format.h>

namespace dasim::results {
namespace {

std::string number(double v) { return fmt::format("{:.9g}", v); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::vector<std::string> fields(const ResultRow& r) {
  return {r.scenario,          r.platform,
          r.workload,          r.schedule,
          std::to_string(r.tau), std::to_string(r.delay),
          r.collective,        std::to_string(r.nodes),
          std::to_string(r.gpus), std::to_string(r.batch_per_gpu),
          number(r.iter_time_s), number(r.throughput_samples_s),
          number(r.speedup),   number(r.efficiency),
          number(r.compute_s), number(r.comm_s),
          number(r.exposed_comm_s), r.source,
          r.calibration};
}

}  // namespace

const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> columns{
      "scenario", "platform",   "workload",  "schedule",  "tau",      "delay",  "collective",
      "nodes",    "gpus",       "batch_per_gpu", "iter_time_s", "throughput_samples_s", "speedup",
      "efficiency", "compute_s", "comm_s",   "exposed_comm_s", "source", "calibration"};
  return columns;
}

std::string to_csv(const std::vector<ResultRow>& rows) {
  std::vector<std::string> header = result_columns();
  if (!rows.empty())
    for (const auto& [key, _] : rows.front().extra) header.push_back(key);
  std::string out = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& f : fields(row)) cells.push_back(csv_field(f));
    for (const auto& [_, value] : row.extra) cells.push_back(csv_field(value));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

nlohmann::ordered_json to_json(const ResultRow& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["platform"] = r.platform;
  j["workload"] = r.workload;
  j["schedule"] = r.schedule;
  j["tau"] = r.tau;
  j["delay"] = r.delay;
  j["collective"] = r.collective;
  j["nodes"] = r.nodes;
  j["gpus"] = r.gpus;
  j["batch_per_gpu"] = r.batch_per_gpu;
  j["iter_time_s"] = r.iter_time_s;
  j["throughput_samples_s"] = r.throughput_samples_s;
  j["speedup"] = r.speedup;
  j["efficiency"] = r.efficiency;
  j["compute_s"] = r.compute_s;
  j["comm_s"] = r.comm_s;
  j["exposed_comm_s"] = r.exposed_comm_s;
  j["source"] = r.source;
  j["calibration"] = r.calibration;
  for (const auto& [key, value] : r.extra) j[key] = value;
  return j;
}

nlohmann::ordered_json to_json(const std::vector<ResultRow>& rows) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const auto& r : rows) array.push_back(to_json(r));
  return array;
}

}  // namespace dasim::results
