#include "scenario/result_rows.hpp"

#include "scenario/global_batch.hpp"

#include "collectives/symmetry.hpp"
#include "compute/compute_model.hpp"
#include "convergence/convergence_model.hpp"
#include "scenario/sweep.hpp"
#include "schedules/periods.hpp"
#include "schedules/schedule_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <limits>

namespace dasim::scenario {
namespace {

std::string calibration_label(const std::string& file, const calibration::Calibration& c) {
  // The file's name only: a path relative to where dasim ran would make the same run differ.
  const std::string name = std::filesystem::path(file).filename().string();
  if (c.measured) return fmt::format("{} (measured on {})", name, c.device.name);
  return fmt::format("{} (datasheet, {} of peak)", name, c.efficiency_assumption.value_or(1.0));
}

}  // namespace

// Mixed sites: each site's, "+"-joined in site order.
std::string calibration_label(const PlatformEntry& platform) {
  if (platform.site_calibrations.empty())
    return calibration_label(platform.calibration_file, platform.calibration);
  std::vector<std::string> labels;
  for (size_t s = 0; s < platform.site_calibrations.size(); ++s)
    labels.push_back(
        calibration_label(platform.spec.site_platforms[s].gpu.calibration, platform.site_calibrations[s]));
  return fmt::format("{}", fmt::join(labels, " + "));
}

results::ResultRow make_result_row(const Scenario& sc, const Configuration& c,
                                   const engine::TrainingResult& result,
                                   const engine::TrainingResult& baseline) {
  const auto& entry = sc.platforms[c.platform];
  const int64_t gpus = int64_t{c.nodes} * entry.spec.gpus_per_node;
  const auto schedule = schedule_at(sc, c.schedule, gpus, c.batch_per_gpu);
  const auto baseline_schedule = schedule_at(sc, c.schedule, baseline_gpus(sc, c.platform), c.batch_per_gpu);
  const compute::ComputeModel model(entry.calibration, sc.precisions[c.precision]);
  results::ResultRow row;
  row.scenario = sc.name;
  row.platform = entry.spec.name;
  row.workload = sc.workloads[c.workload].name;
  row.precision = sc.precisions[c.precision];
  row.compute_precision = model.fell_back_to_fp32() ? "fp32" : model.compute_precision();
  row.fusion = sc.fusion;
  row.schedule = schedules::to_string(schedule.kind);
  row.tau = schedule.tau;
  row.delay = schedule.delay;
  row.schedule_detail = schedules::describe(schedule);
  if (schedule.kind == schedules::ScheduleKind::sgd || schedules::has_islands(schedule))
    row.bucket_cap_bytes = schedule.bucket_cap_bytes;
  row.collective = collectives::to_string(sc.collective.algorithm);
  row.algorithms_used = result.algorithms_used;
  row.progress = collectives::kProgressNames.name(sc.collective.progress);
  row.granularity = collectives::kGranularityNames.name(sc.collective.granularity);
  row.nodes = c.nodes;
  row.gpus = c.nodes * entry.spec.gpus_per_node;
  row.simulated_nodes = result.simulated_nodes;
  // "1 nodes: nothing to fold" says nothing a reader of the row does not see.
  if (result.simulated_nodes > collectives::kFoldedNodes) row.not_folded_because = result.fold_why_not;
  row.batch_per_gpu = c.batch_per_gpu;
  // As simulated: rounded up to whole periods of the schedule (tau, H).
  row.iterations = result.measured_iterations;
  row.warmup = static_cast<int>(schedules::whole_periods(sc.warmup, schedule));
  row.iter_time_s = result.iter_time_s;
  // A step trains on every micro-batch of the step (gradient accumulation).
  const double samples_per_gpu_step = double(schedules::samples_per_gpu_step(schedule, c.batch_per_gpu));
  row.samples_per_s = row.gpus * samples_per_gpu_step / result.iter_time_s;
  // speedup = throughput(n) / throughput(baseline) x baseline GPUs, the same schedule: weak
  // scaling, or with a global batch strong scaling (the baseline accumulates more micro-batches).
  row.baseline_gpus = baseline_gpus(sc, c.platform);
  row.baseline_samples_per_s = row.baseline_gpus *
                               double(schedules::samples_per_gpu_step(baseline_schedule, c.batch_per_gpu)) /
                               baseline.iter_time_s;
  row.speedup = row.samples_per_s / row.baseline_samples_per_s * row.baseline_gpus;
  row.efficiency = row.speedup / row.gpus;
  row.compute_s = result.compute_s;
  row.compute_slowdown_s = result.compute_slowdown_s;
  row.comm_s = result.comm_s;
  row.exposed_comm_s = result.exposed_comm_s;
  row.comm_max_s = result.comm_max_s;
  row.exposed_comm_max_s = result.exposed_comm_max_s;
  row.input_wait_s = result.input_wait_s;
  row.source = "simulated";
  row.calibration = calibration_label(entry);
  row.calibration_sha256 = entry.calibration_sha256;
  if (sc.convergence) {  // time to accuracy: the model's steps at this global batch, at this step time
    const auto steps = convergence::predict_steps(*sc.convergence, schedule, row.gpus, samples_per_gpu_step);
    if (steps.steps) {
      row.steps_to_target = *steps.steps;
      row.time_to_target_s = *steps.steps * row.iter_time_s;
    }
  }
  if (sc.sweep)
    row.extra.push_back({sweep_column(sc.sweep->parameter), fmt::format("{:.9g}", *c.sweep_value)});
  return row;
}

}  // namespace dasim::scenario
