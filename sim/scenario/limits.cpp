#include "scenario/limits.hpp"

#include "common/errors.hpp"
#include "common/units.hpp"
#include "engine/symmetric_fold.hpp"
#include "scenario/global_batch.hpp"
#include "scenario/simulation_jobs.hpp"
#include "schedules/periods.hpp"
#include "workload/buckets.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>

namespace dasim::scenario {
namespace {

// Measured on the development machine (docs/hardening.md, "Limits"), 2026-12-02, with collective
// parts in reused actors and tcmalloc: `dasim run` of ResNet-50, sgd, 25 MiB buckets (4 allreduces
// per iteration), ring, 8 + 4 iterations, every node simulated (collective.fold false), release
// build:
//   flat-100gbe-64 (1 ring): 512 GPUs 0.84 s, 87 MB; 1,024 GPUs 2.18 s, 157 MB; 2,048 GPUs 6.12 s, 293 MB
//   dgx-a100-hdr (8 rings): 256 GPUs 1.15 s, 51 MB; 512 GPUs 3.49 s, 86 MB; 1,024 GPUs 8.25 s, 201 MB
//   and folded onto 2 nodes (16 GPUs, 8 rings), whatever the node count: 0.15 s, 41 MB.
// Memory: ~35 MB fixed (SimGrid, calibration, workload) + ~135 KB per simulated GPU. Time: a
// start-up of ~0.15 s (the process and its simulation child), then per iteration 41 us per GPU
// and allreduce at 1,024 GPUs on one ring, growing as GPUs^0.55 (each completion re-solves a
// sharing system that grows with the flows) and as rings^0.67 (8 rings cost 4x one). Every
// measurement above is within 2x of its estimate (tests/scenario/limits_test.cpp).
constexpr double kFixedMemoryBytes = 35e6;
constexpr double kMemoryPerGpuBytes = 135e3;
constexpr double kStartupSeconds = 0.15;
constexpr double kSecondsPerGpuAllreduceAt1024 = 41e-6;
constexpr double kGpuExponent = 0.55;
// Gradient accumulation adds a forward and a backward execution per GPU and micro-batch (what one
// micro-batch costs is in the allreduce figures above). Measured 2026-12-04, `dasim run` of
// ResNet-50, sgd, jitter 0.01 (nothing folds), 2 + 1 iterations on flat-100gbe-64: 8 GPUs x 4,096
// micro-batches 0.73 s, 64 GPUs x 512 micro-batches 0.55 s (~200,000 micro-batches each, the
// baseline's included): 2.8 to 3.7 us per micro-batch and GPU; 7.5 us estimates it with room.
constexpr double kSecondsPerMicroBatch = 7.5e-6;
constexpr double kRingExponent = 0.67;

// Jitter desynchronises the ranks, so no run folds and each rank reaches each collective at its
// own instant. A tree's flows start together when the last rank has arrived
// (double_binary_tree.cpp), so the solver re-solves a tree once, not once per arrival; what is
// left is kJitterCostFactor (limits.hpp) over the whole run's estimate without jitter. Measured
// 2026-12-03, `dasim run` of ResNet-50, sgd, 4 buckets, 8 + 4 iterations, jitter stddev 0.001
// (NCCL's tuner picks trees on both), on the idle 2-core machine:
//   flat-100gbe-64 (1 NIC): 256 GPUs 0.97 s, 512 GPUs 1.95 s
//   dgx-h100-ndr (8 NICs): 128 GPUs 0.95 s, 256 GPUs 2.38 s, 512 GPUs 5.70 s
// 2.0 to 3.5 times estimate_cost of every GPU. Before the trees started together the same runs
// took 7.96, 34.5, 2.18, 8.49 and 34.9 s, growing as GPUs^2.1.

constexpr const char* kRefusing = "; refusing (use --force to run anyway)";

size_t sgd_buckets(const Scenario& sc, size_t workload, double cap_bytes) {
  return std::max<size_t>(1, workload::plan_buckets(sc.workloads[workload], cap_bytes).size());
}

// Allreduces per iteration of a configuration: the bucket plan for sgd and inside islands, one
// whole-model allreduce (at most) for the periodic schedules. fsdp gathers each unit twice and
// reduce-scatters it once: as 2 allreduces per unit, measured 2026-12-03 (ResNet-50 sgd fsdp on
// dgx-h100-ndr, 8 + 4 iterations: 128 GPUs 0.81 s, 256 GPUs 3.10 s, 512 GPUs 6.80 s).
size_t allreduces(const Scenario& sc, const Configuration& c) {
  const auto& s = sc.schedules[c.schedule];
  if (s.kind != schedules::ScheduleKind::sgd && !schedules::has_islands(s)) return 1;
  const size_t buckets = sgd_buckets(sc, c.workload, s.bucket_cap_bytes);
  return schedules::has_sharded_steps(s) ? 2 * buckets : buckets;
}

// Rings side by side (the simulation's cost grows with them): the scenario's ring_channels, or
// one per NIC of the platform's nodes as NCCL's channels.
int rings_of(const Scenario& sc, size_t platform) {
  return sc.collective.ring_channels > 0 ? sc.collective.ring_channels
                                         : std::max(1, sc.platforms[platform].spec.rails());
}

int64_t gpus_of(const Scenario& sc, const Configuration& c) {
  return static_cast<int64_t>(c.nodes) * sc.platforms[c.platform].spec.gpus_per_node;
}

// Micro-batches per step (gradient accumulation): the schedule's, or the global batch's share.
int64_t micro_batches(const Scenario& sc, const Configuration& c) {
  return schedule_at(sc, c.schedule, gpus_of(sc, c), c.batch_per_gpu).accumulation_steps;
}

}  // namespace

int64_t simulated_gpus(const Scenario& sc, const Configuration& c) {
  const int64_t gpus = gpus_of(sc, c);
  try {
    const auto fold = engine::decide_fold(training_config(sc, c, false));
    return static_cast<int64_t>(fold.simulated_nodes) * sc.platforms[c.platform].spec.gpus_per_node;
  } catch (const InputError&) {
    return gpus;  // a configuration the run will refuse with its own message: estimated whole
  }
}

CostEstimate estimate_cost(int64_t gpus, size_t gradient_buckets, int rings) {
  CostEstimate e;
  const double p = static_cast<double>(gpus);
  e.memory_bytes = kFixedMemoryBytes + kMemoryPerGpuBytes * p;
  e.startup_s = kStartupSeconds;
  e.iteration_s = kSecondsPerGpuAllreduceAt1024 * std::pow(p / 1024, kGpuExponent) * p *
                  static_cast<double>(gradient_buckets) * std::pow(std::max(1, rings), kRingExponent);
  return e;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{:.0f} B", bytes);
  return bytes < 10 ? fmt::format("{:.1f} {}", bytes, units[u]) : fmt::format("{:.0f} {}", bytes, units[u]);
}

std::string human_duration(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min", s / 60);
  if (s < 86400 * 2) return fmt::format("{:.1f} h", s / 3600);
  if (s < 86400 * 365) return fmt::format("{:.1f} days", s / 86400);
  return fmt::format("{:.1f} years", s / (86400 * 365));
}

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

double available_memory_bytes() {
  // The kernel's estimate of what can be allocated without swapping (MemAvailable, in kB): what a
  // run may take now, not the RAM other processes already hold.
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0;
  std::string unit;
  while (meminfo >> key >> kilobytes >> unit)
    if (key == "MemAvailable:") return kilobytes * 1024;
  return physical_memory_bytes();
}

void check_gpu_limit(int64_t gpus, const std::string& file, const std::string& path, const std::string& how,
                     size_t gradient_buckets, const Limits& limits, int rings, int64_t simulated) {
  const auto e = estimate_cost(simulated > 0 ? simulated : gpus, gradient_buckets, rings);
  if (gpus > limits.max_gpus)
    throw InputError(file, path,
                     fmt::format("{}{} would need ~{} and ~{} per iteration (limit: {} GPUs per "
                                 "configuration){}",
                                 how, units::format_count(gpus, "GPU"), human_bytes(e.memory_bytes),
                                 human_duration(e.iteration_s), limits.max_gpus, kRefusing));
  const double memory = limits.memory_bytes > 0 ? limits.memory_bytes : available_memory_bytes();
  if (memory > 0 && e.memory_bytes > memory)
    throw InputError(
        file, path,
        fmt::format("{}{} would need ~{}, more than the {} of memory this machine has available{}", how,
                    units::format_count(gpus, "GPU"), human_bytes(e.memory_bytes), human_bytes(memory),
                    kRefusing));
}

namespace {

// 1. GPUs in one configuration (memory is what runs out first), and the memory it needs against
// what the machine has: of the GPUs it simulates, the most any configuration of that node count
// simulates (a folded one runs two nodes; engine/symmetric_fold.hpp).
void check_gpu_counts(const Scenario& sc, const std::vector<Configuration>& configs,
                      const std::vector<int64_t>& simulated_by_config, const Limits& limits) {
  std::map<std::pair<size_t, int>, int64_t> simulated;  // (platform, nodes) -> the most simulated
  for (size_t i = 0; i < configs.size(); ++i) {
    auto& most = simulated[{configs[i].platform, configs[i].nodes}];
    most = std::max(most, simulated_by_config[i]);
  }
  const size_t buckets = sgd_buckets(sc, 0, workload::kDdpDefaultBucketCapBytes);
  for (size_t p = 0; p < sc.platforms.size(); ++p) {
    const auto& entry = sc.platforms[p];
    for (size_t n = 0; n < entry.nodes.size(); ++n) {
      const int64_t gpus = static_cast<int64_t>(entry.nodes[n]) * entry.spec.gpus_per_node;
      const auto it = simulated.find({p, entry.nodes[n]});
      // Beyond the GPU limit the refusal quotes the whole run.
      const int64_t most = gpus <= limits.max_gpus && it != simulated.end() ? it->second : 0;
      check_gpu_limit(gpus, sc.file, fmt::format("platforms[{}].nodes[{}]", p, n),
                      fmt::format("{} x {} = ", units::format_count(entry.nodes[n], "node"),
                                  units::format_count(entry.spec.gpus_per_node, "GPU")),
                      buckets, limits, rings_of(sc, p), most);
    }
  }
}

// The iterations a configuration of schedule `spec` simulates: warm-up and measured run each
// rounded up to whole synchronisation periods (training_simulation.cpp), so tau decides too.
int64_t simulated_iterations(const Scenario& sc, const schedules::ScheduleSpec& spec) {
  return schedules::whole_periods(sc.warmup, spec) +
         schedules::whole_periods(std::max(1, sc.iterations), spec);
}

// 2. Iterations: the whole run's estimate is quoted.
void check_iterations(const Scenario& sc, const std::vector<Configuration>& configs, const Limits& limits,
                      double total_s) {
  for (size_t s = 0; s < sc.schedules.size(); ++s) {
    const auto& spec = sc.schedules[s];
    const int64_t iterations = simulated_iterations(sc, spec);
    if (iterations <= limits.max_iterations) continue;
    const std::string rounded =
        schedules::sync_period(spec) > 1
            ? fmt::format(", rounded up to whole periods of tau = {}: {} iterations,", spec.tau, iterations)
            : "";
    throw InputError(
        sc.file,
        spec.kind == schedules::ScheduleKind::sgd ? "iterations" : fmt::format("schedules[{}].tau", s),
        fmt::format("{} iterations + {} warmup{} would take ~{} for the {} configurations (limit: {} "
                    "iterations){}",
                    sc.iterations, sc.warmup, rounded, human_duration(total_s), configs.size(),
                    limits.max_iterations, kRefusing));
  }
}

// 3. Tiny gradient buckets on many GPUs: one allreduce per layer, each over every GPU.
void check_bucket_caps(const Scenario& sc, const std::vector<Configuration>& configs, const Limits& limits) {
  for (size_t s = 0; s < sc.schedules.size(); ++s) {
    const auto& spec = sc.schedules[s];
    if (spec.kind != schedules::ScheduleKind::sgd || spec.bucket_cap_bytes >= limits.min_bucket_cap_bytes)
      continue;
    for (const auto& c : configs) {
      const int64_t gpus = gpus_of(sc, c);
      if (c.schedule != s || gpus <= limits.bucket_cap_min_gpus) continue;
      const size_t buckets = allreduces(sc, c);
      auto e = estimate_cost(gpus, buckets, rings_of(sc, c.platform));
      throw InputError(
          sc.file, fmt::format("schedules[{}].bucket_cap", s),
          fmt::format("a {} bucket cap on {} GPUs makes {} allreduces of {} per iteration, ~{} per "
                      "iteration (limit: a cap of at least {} above {} GPUs){}",
                      human_bytes(spec.bucket_cap_bytes), gpus, buckets, sc.workloads[c.workload].name,
                      human_duration(e.iteration_s), human_bytes(limits.min_bucket_cap_bytes),
                      limits.bucket_cap_min_gpus, kRefusing));
    }
  }
}

// 4. Gradient accumulation: every micro-batch of every simulated GPU is an execution of its own,
// the baseline's too (with a global batch it accumulates the most; counted whole, unfolded).
void check_micro_batches(const Scenario& sc, const std::vector<Configuration>& configs,
                         const std::vector<int64_t>& simulated, const Limits& limits) {
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    const int64_t per_step = micro_batches(sc, c);
    const int64_t baseline = baseline_gpus(sc, c.platform);
    const int64_t baseline_per_step =
        schedule_at(sc, c.schedule, baseline, c.batch_per_gpu).accumulation_steps;
    const int64_t iterations = simulated_iterations(sc, sc.schedules[c.schedule]);
    const double total =
        (double(simulated[i]) * double(per_step) + double(baseline) * double(baseline_per_step)) *
        double(iterations);
    if ((per_step == 1 && baseline_per_step == 1) || total <= double(limits.max_micro_batches)) continue;
    throw InputError(
        sc.file,
        sc.global_batch ? "global_batch"
                        : fmt::format("schedules[{}].gradient_accumulation_steps", c.schedule),
        fmt::format(
            "{} micro-batches per step on {} simulated GPUs and {} on the baseline's {} x {} iterations "
            "are {:.3g} micro-batches, ~{} (limit: {} per configuration){}",
            per_step, simulated[i], baseline_per_step, baseline, iterations, total,
            human_duration(kSecondsPerMicroBatch * total), limits.max_micro_batches, kRefusing));
  }
}

// 5. Configurations.
void check_configuration_count(const Scenario& sc, const std::vector<Configuration>& configs,
                               const Limits& limits, double total_s) {
  if (configs.size() > limits.max_configurations)
    throw InputError(
        sc.file, "",
        fmt::format("{} ({} x {} x {}{}{}{}) would take ~{} (limit: {} configurations){}",
                    units::format_count(static_cast<long long>(configs.size()), "configuration"),
                    units::format_count(
                        static_cast<long long>(configs.size() / sc.workloads.size() / sc.schedules.size() /
                                               (sc.sweep ? sc.sweep->values.size() : 1) /
                                               sc.precisions.size() / sc.batches.size()),
                        "platform node count"),
                    units::format_count(static_cast<long long>(sc.workloads.size()), "workload"),
                    units::format_count(static_cast<long long>(sc.schedules.size()), "schedule"),
                    sc.sweep ? fmt::format(" x {} sweep values", sc.sweep->values.size()) : "",
                    sc.precisions.size() > 1 ? fmt::format(" x {} precisions", sc.precisions.size()) : "",
                    sc.batches.size() > 1 ? fmt::format(" x {} batches", sc.batches.size()) : "",
                    human_duration(total_s), limits.max_configurations, kRefusing));
}

}  // namespace

namespace {

double wall_s(const Scenario& sc, const Configuration& c, int64_t simulated) {
  const size_t collectives = allreduces(sc, c);
  const auto e = estimate_cost(simulated, collectives, rings_of(sc, c.platform));
  // Ranks of unequal speed (gpu_spread) reach each collective apart, as jittered ones do.
  const bool desynchronised = sc.jitter_stddev > 0 || sc.gpu_spread.has_value();
  const double iteration_s = (desynchronised ? kJitterCostFactor * e.iteration_s : e.iteration_s) +
                             kSecondsPerMicroBatch * double(simulated) * double(micro_batches(sc, c) - 1);
  return e.startup_s + iteration_s * static_cast<double>(simulated_iterations(sc, sc.schedules[c.schedule]));
}

}  // namespace

double estimated_wall_s(const Scenario& sc, const Configuration& c) {
  return wall_s(sc, c, simulated_gpus(sc, c));
}

void check_limits(const Scenario& sc, const std::vector<Configuration>& configs, const Limits& limits) {
  // Whether each configuration folds, once: it plans the configuration's step, which a scenario
  // refused for its configuration count is not worth (its estimate counts every GPU).
  const bool too_many = configs.size() > limits.max_configurations;
  std::vector<int64_t> simulated(configs.size());
  for (size_t i = 0; i < configs.size(); ++i)
    simulated[i] = too_many ? gpus_of(sc, configs[i]) : simulated_gpus(sc, configs[i]);
  check_gpu_counts(sc, configs, simulated, limits);
  if (configs.empty()) return;
  double total_s = 0;  // all configurations, warm-up included
  for (size_t i = 0; i < configs.size(); ++i) total_s += wall_s(sc, configs[i], simulated[i]);
  check_iterations(sc, configs, limits, total_s);
  check_bucket_caps(sc, configs, limits);
  check_micro_batches(sc, configs, simulated, limits);
  check_configuration_count(sc, configs, limits, total_s);
}

}  // namespace dasim::scenario
