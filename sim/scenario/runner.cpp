#include "scenario/runner.hpp"

#include "common/errors.hpp"
#include "runtime/isolated_run.hpp"
#include "engine/training_simulation.hpp"
#include "platform/platform_loader.hpp"
#include "platform/platform_variants.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <map>
#include <numeric>
#include <tuple>

namespace dasim::scenario {
namespace {

engine::TrainingConfig training_config(const Scenario& sc, const Configuration& c, bool baseline) {
  const auto& entry = sc.platforms[c.platform];
  engine::TrainingConfig t;
  t.platform = entry.spec;
  t.platform.nodes = c.nodes;
  if (c.sweep_value) platform::apply_sweep(t.platform, sc.sweep->parameter, *c.sweep_value);
  if (baseline) t.platform = platform::single_gpu(t.platform);
  platform::validate_platform(t.platform);
  t.workload = sc.workloads[c.workload];
  t.calibration = entry.calibration;
  t.precision = sc.precision;
  t.batch_per_gpu = sc.batch_per_gpu;
  t.schedule = sc.schedules[c.schedule];
  t.collective = sc.collective;
  t.collective.memory_bandwidth_Bps = entry.calibration.fitted.memory_bandwidth_Bps;
  t.warmup_iterations = sc.warmup;
  t.measured_iterations = sc.iterations;
  t.jitter_stddev = baseline ? 0.0 : sc.jitter_stddev;
  t.seed = sc.seed;
  if (!baseline) t.slowdown_by_rank = sc.slowdown_by_rank;
  return t;
}

std::function<std::string()> job(engine::TrainingConfig config) {
  return [config = std::move(config)] { return engine::to_json(engine::simulate_training(config)).dump(); };
}

}  // namespace

std::string calibration_label(const PlatformEntry& platform) {
  const auto& c = platform.calibration;
  if (c.measured) return fmt::format("{} (measured on {})", platform.calibration_file, c.device.name);
  return fmt::format("{} (datasheet, {} of peak)", platform.calibration_file, c.efficiency_assumption.value_or(1.0));
}

RunOutput run_scenario(const Scenario& sc, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto configs = expand(sc);
  if (options.trace_index && *options.trace_index >= configs.size())
    throw InputError(fmt::format("--trace {}: the scenario has configurations 0..{}", *options.trace_index,
                                 configs.size() - 1));

  // One baseline per (platform, workload, schedule, sweep value): the same schedule on one GPU.
  using Key = std::tuple<size_t, size_t, size_t, double>;
  std::map<Key, size_t> baseline_job;
  std::vector<std::function<std::string()>> jobs;
  for (const auto& c : configs) {
    Key key{c.platform, c.workload, c.schedule, c.sweep_value.value_or(0)};
    if (!baseline_job.count(key)) {
      baseline_job[key] = jobs.size();
      jobs.push_back(job(training_config(sc, c, true)));
    }
  }
  const size_t first_config_job = jobs.size();
  for (size_t i = 0; i < configs.size(); ++i) {
    auto t = training_config(sc, configs[i], false);
    if (options.trace_index && *options.trace_index == i) t.trace_ranks = options.trace_ranks;
    jobs.push_back(job(std::move(t)));
  }

  size_t done = 0;
  const bool interactive = ::isatty(STDERR_FILENO) != 0;
  auto progress = [&](size_t) {
    ++done;
    if (options.quiet) return;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double eta = elapsed / static_cast<double>(done) * static_cast<double>(jobs.size() - done);
    // On a terminal one line updates in place; in a log, a line per tenth of the work.
    if (interactive) {
      fmt::print(stderr, "\r[dasim run] {}: {}/{} simulations done, {:.1f} s elapsed, ETA {:.0f} s   ", sc.name, done,
                 jobs.size(), elapsed, eta);
      if (done == jobs.size()) fmt::print(stderr, "\n");
    } else if (done == jobs.size() || done * 10 / jobs.size() != (done - 1) * 10 / jobs.size()) {
      fmt::print(stderr, "[dasim run] {}: {}/{} simulations done, {:.1f} s elapsed, ETA {:.0f} s\n", sc.name, done,
                 jobs.size(), elapsed, eta);
    }
  };
  // Largest configurations first, so the last job running alone is a small one.
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  auto gpus_of = [&](size_t job_index) {
    if (job_index < first_config_job) return 1;
    const auto& c = configs[job_index - first_config_job];
    return c.nodes * sc.platforms[c.platform].spec.gpus_per_node;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gpus_of(a) > gpus_of(b); });
  std::vector<std::function<std::string()>> ordered;
  for (size_t i : order) ordered.push_back(jobs[i]);
  auto ordered_outputs = runtime::run_isolated_parallel(ordered, options.jobs, progress);
  std::vector<std::string> outputs(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) outputs[order[i]] = std::move(ordered_outputs[i]);

  RunOutput out;
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    const auto& entry = sc.platforms[c.platform];
    auto result = engine::training_result_from_json(nlohmann::json::parse(outputs[first_config_job + i]));
    auto base = engine::training_result_from_json(nlohmann::json::parse(
        outputs[baseline_job.at(Key{c.platform, c.workload, c.schedule, c.sweep_value.value_or(0)})]));
    const auto& schedule = sc.schedules[c.schedule];
    results::ResultRow row;
    row.scenario = sc.name;
    row.platform = entry.spec.name;
    row.workload = sc.workloads[c.workload].name;
    row.schedule = schedules::to_string(schedule.kind);
    row.tau = schedule.tau;
    row.delay = schedule.delay;
    row.collective = collectives::to_string(sc.collective.algorithm);
    row.nodes = c.nodes;
    row.gpus = c.nodes * entry.spec.gpus_per_node;
    row.batch_per_gpu = sc.batch_per_gpu;
    row.iter_time_s = result.iter_time_s;
    row.throughput_samples_s = row.gpus * sc.batch_per_gpu / result.iter_time_s;
    // Weak scaling: speedup = throughput(n) / throughput(1 GPU, same schedule).
    row.speedup = row.throughput_samples_s / (sc.batch_per_gpu / base.iter_time_s);
    row.efficiency = row.speedup / row.gpus;
    row.compute_s = result.compute_s;
    row.comm_s = result.comm_s;
    row.exposed_comm_s = result.exposed_comm_s;
    row.source = "simulated";
    row.calibration = calibration_label(entry);
    if (sc.sweep) row.extra.push_back({platform::sweep_column(sc.sweep->parameter), fmt::format("{:.9g}", *c.sweep_value)});
    out.rows.push_back(std::move(row));
    if (options.trace_index && *options.trace_index == i) out.trace = result.trace;
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace dasim::scenario
