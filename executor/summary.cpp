// Result row, output JSON and profile JSON of a dasim-train run (see summary.hpp).
#include "summary.hpp"

#include "mlp.hpp"
#include "model_buckets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace dasim::executor {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<double> mean_over_ranks(const std::vector<std::vector<StepRecord>>& per_rank,
                                    double StepRecord::*field) {
  std::vector<double> mean(per_rank.front().size(), 0.0);
  for (const auto& steps : per_rank)
    for (size_t k = 0; k < steps.size(); ++k) mean[k] += steps[k].*field / per_rank.size();
  return mean;
}

std::string model_name(const std::vector<int>& widths) {
  return fmt::format("mlp-{}", fmt::join(widths, "x"));
}

std::string platform_name(const std::vector<std::string>& hosts) {
  std::vector<std::string> distinct;
  for (const auto& h : hosts)
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  return fmt::format("{}", fmt::join(distinct, "+"));
}

namespace {

// Per step: the slowest rank's wall time (the step ends for the cluster when its last rank is done).
std::vector<double> slowest_wall(const std::vector<std::vector<StepRecord>>& per_rank) {
  std::vector<double> wall(per_rank.front().size(), 0.0);
  for (const auto& steps : per_rank)
    for (size_t k = 0; k < steps.size(); ++k) wall[k] = std::max(wall[k], steps[k].wall_s);
  return wall;
}

double steady_mean(const std::vector<double>& values, const schedules::SteadyWindow& window) {
  double sum = 0;
  for (long k = window.first; k < window.first + window.count; ++k) sum += values[size_t(k)];
  return sum / static_cast<double>(window.count);
}

}  // namespace

results::ResultRow make_result_row(const RunDescription& run,
                                   const std::vector<std::vector<StepRecord>>& per_rank) {
  const auto& o = run.options;
  const schedules::SteadyWindow window =
      steady_window(o.schedule, static_cast<long>(per_rank.front().size()), o.warmup_steps);
  if (window.count < 1)
    throw std::invalid_argument("no whole synchronisation period after the warm-up to time");
  results::ResultRow row;
  row.scenario = o.scenario;
  row.platform = platform_name(run.hosts);
  row.workload = model_name(run.widths);
  row.precision = row.compute_precision = "fp32";  // the executor's MLP trains in fp32
  row.fusion = "none";
  row.schedule = to_string(o.schedule.kind);
  row.tau = o.schedule.tau;
  row.delay = o.schedule.delay;
  row.schedule_detail = schedules::describe(o.schedule);
  if (o.schedule.kind == schedules::ScheduleKind::sgd || schedules::has_islands(o.schedule))
    row.bucket_cap_bytes = o.schedule.bucket_cap_bytes;
  row.collective = o.device == Device::cuda ? "nccl" : "mpi";
  row.nodes = static_cast<int>(std::set<std::string>(run.hosts.begin(), run.hosts.end()).size());
  row.gpus = run.ranks;
  row.batch_per_gpu = o.batch;
  row.iterations = static_cast<int>(window.count);
  row.warmup = static_cast<int>(window.first);
  row.iter_time_s = steady_mean(slowest_wall(per_rank), window);
  row.samples_per_s =
      static_cast<double>(schedules::samples_per_gpu_step(o.schedule, o.batch)) * run.ranks / row.iter_time_s;
  row.baseline_gpus = 1;
  if (run.ranks == 1) {
    row.baseline_samples_per_s = row.samples_per_s;
    row.speedup = row.efficiency = 1.0;
  } else if (o.baseline_throughput > 0) {
    row.baseline_samples_per_s = o.baseline_throughput;
    row.speedup = row.samples_per_s / o.baseline_throughput;
    row.efficiency = row.speedup / run.ranks;
  } else {  // no 1-rank throughput to compare with: unknown, not 0
    row.speedup = row.efficiency = std::numeric_limits<double>::quiet_NaN();
  }
  row.compute_s = steady_mean(mean_over_ranks(per_rank, &StepRecord::compute_s), window);
  row.comm_s = steady_mean(mean_over_ranks(per_rank, &StepRecord::comm_s), window);
  row.exposed_comm_s = steady_mean(mean_over_ranks(per_rank, &StepRecord::exposed_s), window);
  for (const auto& steps : per_rank) {  // the slowest rank's
    std::vector<double> comm, exposed;
    for (const auto& s : steps) {
      comm.push_back(s.comm_s);
      exposed.push_back(s.exposed_s);
    }
    row.comm_max_s = std::max(row.comm_max_s, steady_mean(comm, window));
    row.exposed_comm_max_s = std::max(row.exposed_comm_max_s, steady_mean(exposed, window));
  }
  row.source = "measured";
  row.calibration = "measured";
  const auto loss = mean_over_ranks(per_rank, &StepRecord::loss);
  const auto reached = steps_to_target(loss, o.target_loss, o.target_window);
  const double wait_s = steady_mean(mean_over_ranks(per_rank, &StepRecord::wait_s), window);
  if (reached) {  // the fixed columns: as the simulator's, steps and their time (slowest rank per step)
    const auto wall = slowest_wall(per_rank);
    row.steps_to_target = *reached;
    row.time_to_target_s = std::accumulate(wall.begin(), wall.begin() + *reached, 0.0);
  }
  row.extra = {
      {"final_loss", fmt::format("{:.6g}", loss.back())},
      {"exposed_wait_s", fmt::format("{:.9g}", wait_s)},
      {"drain_s",
       fmt::format("{:.9g}",
                   run.drain_s.empty() ? 0.0 : *std::max_element(run.drain_s.begin(), run.drain_s.end()))}};
  return row;
}

nlohmann::ordered_json buckets_json(const std::vector<workload::Bucket>& buckets) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& b : buckets)
    out.push_back({{"layers", {b.first_layer, b.last_layer}}, {"bytes", b.params * 4}});
  return out;
}

nlohmann::ordered_json make_plan(const TrainOptions& o, const std::vector<int>& widths) {
  const Mlp model(widths, o.seed);
  schedules::ScheduleSpec as_sgd = o.schedule;  // every message size, whatever the schedule
  as_sgd.kind = schedules::ScheduleKind::sgd;
  const auto buckets = plan_model_buckets(model, as_sgd).buckets;
  const schedules::SteadyWindow window = steady_window(o.schedule, o.steps, o.warmup_steps);
  nlohmann::ordered_json plan;
  plan["model"] = model_name(widths);
  plan["layer_widths"] = widths;
  plan["params"] = model.param_count();
  plan["schedule"] = to_string(o.schedule.kind);
  plan["tau"] = o.schedule.tau;
  plan["delay"] = o.schedule.delay;
  plan["steps"] = o.steps;
  plan["warmup_steps"] = o.warmup_steps;
  plan["timed_steps"] = {window.first + 1, window.first + window.count};  // 1-based, inclusive
  plan["bucket_bytes"] = o.schedule.bucket_cap_bytes;
  plan["buckets"] = buckets_json(buckets);
  plan["weights_bytes"] = model.param_count() * 4;
  return plan;
}

nlohmann::ordered_json make_output(const RunDescription& run,
                                   const std::vector<std::vector<StepRecord>>& per_rank, double wall_time_s) {
  const auto& o = run.options;
  nlohmann::ordered_json config;
  config["model"] = model_name(run.widths);
  config["layer_widths"] = run.widths;
  config["params"] = run.params;
  config["precision"] = "fp32";
  config["device"] = o.device == Device::cuda ? "cuda" : "cpu";
  config["schedule"] = to_string(o.schedule.kind);
  config["tau"] = o.schedule.tau;
  config["delay"] = o.schedule.delay;
  // What `dasim fit-convergence` needs besides tau and delay to place a run in the model.
  config["schedule_detail"] = schedules::describe(o.schedule);
  config["island_ranks"] = o.schedule.island_gpus;
  config["data_parallel"] = schedules::kDataParallelNames.name(o.schedule.data_parallel);
  config["eager"] = o.schedule.eager;
  if (schedules::has_top_k(o.schedule)) config["top_k"] = o.schedule.top_k.density;
  if (o.schedule.payload_bits != 32) config["bits"] = o.schedule.payload_bits;
  if (schedules::is_diloco_family(o.schedule))
    config["outer"] = {{"optimizer", schedules::kOuterOptimizerNames.name(o.schedule.outer.optimizer)},
                       {"lr", o.schedule.outer.lr},
                       {"momentum", o.schedule.outer.momentum}};
  config["batch_per_rank"] = o.batch;
  config["gradient_accumulation_steps"] = o.schedule.accumulation_steps;
  config["lr"] = std::stod(fmt::format("{}", o.lr));  // the float as typed, not its binary expansion
  config["steps"] = o.steps;
  config["warmup_steps"] = o.warmup_steps;
  const schedules::SteadyWindow window = steady_window(o.schedule, o.steps, o.warmup_steps);
  config["timed_steps"] = {window.first + 1, window.first + window.count};  // 1-based, inclusive
  config["seed"] = o.seed;
  config["ranks"] = run.ranks;
  config["hosts"] = run.hosts;
  config["dataset"] = run.dataset;
  config["mpi_library"] = run.mpi_library;
  config["blas"] = run.blas;
  config["blas_threads_per_rank"] = o.blas_threads;
  config["bucket_bytes"] = o.schedule.bucket_cap_bytes;
  config["buckets"] = buckets_json(run.buckets);

  const auto loss = mean_over_ranks(per_rank, &StepRecord::loss);
  const auto wall = slowest_wall(per_rank);
  const auto reached = steps_to_target(loss, o.target_loss, o.target_window);
  nlohmann::ordered_json target;
  target["target_loss"] = o.target_loss;
  target["window_steps"] = o.target_window;
  target["reached"] = reached.has_value();
  if (reached) {
    double t = 0;
    for (int k = 0; k < *reached; ++k) t += wall[k];
    target["steps"] = *reached;
    target["wall_time_s"] = t;
  }

  nlohmann::ordered_json out;
  out["tool"] = "dasim-train";
  out["config"] = config;
  out["results"] = results::to_json(std::vector<results::ResultRow>{make_result_row(run, per_rank)});
  out["target"] = target;
  out["wall_time_s"] = wall_time_s;
  out["loss_curve"] = loss;
  auto ranks = nlohmann::ordered_json::array();
  for (size_t r = 0; r < per_rank.size(); ++r) {
    nlohmann::ordered_json entry;
    entry["rank"] = r;
    entry["host"] = run.hosts[r];
    for (auto [name, field] :
         {std::pair{"loss", &StepRecord::loss}, std::pair{"wall_s", &StepRecord::wall_s},
          std::pair{"compute_s", &StepRecord::compute_s}, std::pair{"comm_s", &StepRecord::comm_s},
          std::pair{"exposed_s", &StepRecord::exposed_s}, std::pair{"wait_s", &StepRecord::wait_s}}) {
      std::vector<double> series;
      for (const auto& s : per_rank[r]) series.push_back(s.*field);
      entry[name] = series;
    }
    entry["drain_s"] = r < run.drain_s.size() ? run.drain_s[r] : 0.0;
    ranks.push_back(entry);
  }
  out["per_rank_steps"] = ranks;
  out["consistency_checks"] = run.consistency_checks;
  if (!run.verify.is_null()) out["verify"] = run.verify;
  return out;
}

nlohmann::ordered_json make_profile(const std::vector<int>& widths, int batch, int warmup_steps,
                                    const std::vector<std::vector<double>>& forward_s,
                                    const std::vector<std::vector<double>>& backward_s,
                                    const std::vector<double>& step_compute_s, const std::string& source) {
  nlohmann::ordered_json profile;
  profile["name"] = model_name(widths);
  profile["precision"] = "fp32";
  profile["measured_batch"] = batch;
  std::vector<double> rest;
  for (size_t k = warmup_steps; k < forward_s.size() && k < step_compute_s.size(); ++k) {
    double layers_s = 0;
    for (size_t l = 0; l < forward_s[k].size(); ++l) layers_s += forward_s[k][l] + backward_s[k][l];
    rest.push_back(std::max(0.0, step_compute_s[k] - layers_s));
  }
  if (!rest.empty()) profile["update_time_s"] = median(rest);
  auto layers = nlohmann::ordered_json::array();
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const double in = widths[l], out = widths[l + 1];
    std::vector<double> f, b;
    for (size_t k = warmup_steps; k < forward_s.size(); ++k) {
      f.push_back(forward_s[k][l]);
      b.push_back(backward_s[k][l]);
    }
    nlohmann::ordered_json layer;
    layer["name"] = fmt::format("fc{}", l + 1);
    layer["kind"] = "linear";
    layer["params"] = static_cast<int64_t>(in * out + out);
    layer["forward_flops"] = 2 * in * out;                  // multiply-add = 2 FLOPs, per sample
    layer["backward_flops"] = (l == 0 ? 2 : 4) * in * out;  // weight gradient (+ input gradient)
    layer["activation_bytes"] = 4 * (in + out);             // fp32 input read + output written
    layer["gemm"] = {
        {"rows_per_sample", 1}, {"n", widths[l + 1]}, {"k", widths[l]}};  // for calibration lookups
    layer["forward_time_s"] = median(f);
    layer["backward_time_s"] = median(b);
    layers.push_back(layer);
  }
  profile["layers"] = layers;
  profile["source"] = source;
  return profile;
}

}  // namespace dasim::executor
