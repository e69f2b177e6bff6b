#include "scenario/result_rows.hpp"

#include "platform/platform_variants.hpp"

#include <fmt/format.h>

namespace dasim::scenario {

std::string calibration_label(const PlatformEntry& platform) {
  const auto& c = platform.calibration;
  if (c.measured) return fmt::format("{} (measured on {})", platform.calibration_file, c.device.name);
  return fmt::format("{} (datasheet, {} of peak)", platform.calibration_file,
                     c.efficiency_assumption.value_or(1.0));
}

results::ResultRow make_result_row(const Scenario& sc, const Configuration& c,
                                   const engine::TrainingResult& result,
                                   const engine::TrainingResult& baseline) {
  const auto& entry = sc.platforms[c.platform];
  const auto& schedule = sc.schedules[c.schedule];
  results::ResultRow row;
  row.scenario = sc.name;
  row.platform = entry.spec.name;
  row.workload = sc.workloads[c.workload].name;
  row.schedule = schedules::to_string(schedule.kind);
  row.tau = schedule.tau;
  row.delay = schedule.delay;
  row.schedule_detail = schedules::describe(schedule);
  row.collective = collectives::to_string(sc.collective.algorithm);
  row.algorithms_used = result.algorithms_used;
  row.nodes = c.nodes;
  row.gpus = c.nodes * entry.spec.gpus_per_node;
  row.batch_per_gpu = sc.batch_per_gpu;
  row.iter_time_s = result.iter_time_s;
  row.throughput_samples_s = row.gpus * sc.batch_per_gpu / result.iter_time_s;
  // Weak scaling: speedup = throughput(n) / throughput(1 GPU, same schedule).
  row.speedup = row.throughput_samples_s / (sc.batch_per_gpu / baseline.iter_time_s);
  row.efficiency = row.speedup / row.gpus;
  row.compute_s = result.compute_s;
  row.compute_slowdown_s = result.compute_slowdown_s;
  row.comm_s = result.comm_s;
  row.exposed_comm_s = result.exposed_comm_s;
  row.comm_max_s = result.comm_max_s;
  row.exposed_comm_max_s = result.exposed_comm_max_s;
  row.source = "simulated";
  row.calibration = calibration_label(entry);
  if (sc.sweep)
    row.extra.push_back({platform::sweep_column(sc.sweep->parameter), fmt::format("{:.9g}", *c.sweep_value)});
  return row;
}

}  // namespace dasim::scenario
