#include "scenario/simulation_jobs.hpp"

#include "common/units.hpp"
#include "engine/training_result_wire.hpp"
#include "platform/platform_loader.hpp"
#include "platform/platform_variants.hpp"
#include "scenario/global_batch.hpp"
#include "scenario/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace dasim::scenario {
namespace {

std::function<std::string()> job(engine::TrainingConfig config) {
  return [config = std::move(config)] { return engine::to_wire(engine::simulate_training(config)); };
}

// "resnet50, sgd on dgx1-v100-edr x 128 nodes (1024 GPUs)": what a user finds in the scenario.
std::string job_name(const Scenario& sc, const Configuration& c) {
  const auto& spec = sc.platforms[c.platform].spec;
  const int64_t gpus = int64_t{c.nodes} * spec.gpus_per_node;
  std::string name = fmt::format("{}, {} on {} x {} ({})", sc.workloads[c.workload].name,
                                 schedules::describe(schedule_at(sc, c.schedule, gpus, c.batch_per_gpu)),
                                 spec.name, units::format_count(c.nodes, "node"),
                                 units::format_count(static_cast<long long>(gpus), "GPU"));
  if (sc.precisions.size() > 1) name += ", " + sc.precisions[c.precision];
  if (sc.batches.size() > 1) name += fmt::format(", batch {}", c.batch_per_gpu);
  if (c.sweep_value) name += fmt::format(", {} = {}", sc.sweep->parameter, *c.sweep_value);
  return name;
}

}  // namespace

engine::TrainingConfig training_config(const Scenario& sc, const Configuration& c, bool baseline) {
  const auto& entry = sc.platforms[c.platform];
  engine::TrainingConfig t;
  t.platform = entry.spec;
  t.platform.nodes = c.nodes;
  t.host_input_samples_per_s =
      entry.host_input_samples_per_s > 0 ? entry.host_input_samples_per_s : sc.host_input_samples_per_s;
  // Before the baseline is derived: its platform and its host are the swept ones too.
  if (c.sweep_value) apply_sweep(t, sc.sweep->parameter, *c.sweep_value);
  if (baseline) {
    const int gpus = baseline_gpus(sc, c.platform);
    if (gpus == 1)
      t.platform = platform::single_gpu(t.platform);
    else
      t.platform.nodes = gpus / entry.spec.gpus_per_node;
  }
  platform::validate_platform(t.platform);
  t.workload = workload_of(sc, c);
  t.calibration = entry.calibration;
  if (!baseline) t.site_calibrations = entry.site_calibrations;  // the baseline: one GPU of the first site
  t.precision = sc.precisions[c.precision];
  t.batch_per_gpu = c.batch_per_gpu;
  t.schedule = schedule_at(sc, c.schedule, t.platform.total_gpus(), c.batch_per_gpu);
  t.collective = sc.collective;
  t.collective.memory_bandwidth_Bps = entry.calibration.fitted.memory_bandwidth_Bps;
  t.warmup_iterations = sc.warmup;
  t.measured_iterations = sc.iterations;
  t.jitter_stddev = baseline ? 0.0 : sc.jitter_stddev;
  t.seed = sc.seed;
  if (!baseline) t.slowdown_by_rank = sc.slowdown_by_rank;
  if (sc.gpu_spread) {  // the baseline's GPUs too: one GPU is the median GPU
    const auto factors =
        calibration::gpu_time_factors(*sc.gpu_spread, t.platform.total_gpus(), sc.gpu_spread_seed);
    for (size_t rank = 0; rank < factors.size(); ++rank)  // a straggler what-if slows its GPU further
      t.slowdown_by_rank.try_emplace(static_cast<int>(rank), 1.0).first->second *= factors[rank];
  }
  return t;
}

BaselineKey baseline_key(const Configuration& c) {
  return {c.platform, c.workload, c.precision, c.batch_per_gpu, c.schedule, c.sweep_value.value_or(0)};
}

SimulationJobs plan_jobs(const Scenario& sc, const std::vector<Configuration>& configs,
                         const std::vector<size_t>& selected, std::optional<size_t> trace_index,
                         int trace_ranks) {
  SimulationJobs jobs;
  std::vector<int> gpus;  // per job, for the order
  for (size_t i : selected) {
    const auto& c = configs[i];
    if (jobs.baseline_job.emplace(baseline_key(c), jobs.bodies.size()).second) {
      jobs.bodies.push_back(job(training_config(sc, c, true)));
      const int baseline = baseline_gpus(sc, c.platform);
      jobs.names.push_back(fmt::format("the {}-GPU baseline of {}", baseline, job_name(sc, c)));
      gpus.push_back(baseline);
    }
  }
  jobs.first_configuration = jobs.bodies.size();
  for (size_t i : selected) {
    auto t = training_config(sc, configs[i], false);
    if (trace_index && *trace_index == i) t.trace_ranks = trace_ranks;
    gpus.push_back(configs[i].nodes * sc.platforms[configs[i].platform].spec.gpus_per_node);
    jobs.bodies.push_back(job(std::move(t)));
    jobs.names.push_back(fmt::format("configuration {} ({})", i, job_name(sc, configs[i])));
  }
  jobs.run_order.resize(jobs.bodies.size());
  std::iota(jobs.run_order.begin(), jobs.run_order.end(), 0);
  std::stable_sort(jobs.run_order.begin(), jobs.run_order.end(),
                   [&](size_t a, size_t b) { return gpus[a] > gpus[b]; });
  return jobs;
}

SimulationJobs plan_jobs(const Scenario& sc, const std::vector<Configuration>& configs,
                         std::optional<size_t> trace_index, int trace_ranks) {
  std::vector<size_t> all(configs.size());
  std::iota(all.begin(), all.end(), 0);
  return plan_jobs(sc, configs, all, trace_index, trace_ranks);
}

}  // namespace dasim::scenario
