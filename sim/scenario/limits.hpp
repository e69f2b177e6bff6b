// Up-front refusal of absurd scenarios: a typo such as 1000000 nodes, 10^6 iterations or a
// 1-byte bucket cap on thousands of GPUs would otherwise run out of memory or run for days before
// the user finds out. check_limits() estimates the memory and wall time such a request would take
// (from measured costs, see docs/hardening.md) and refuses it with one line; `dasim run --force`
// skips the check.
#pragma once

#include "scenario/scenario.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dasim::scenario {

struct Limits {
  int64_t max_gpus = 131072;           // GPUs in one configuration (16,384 DGX-class nodes)
  int64_t max_iterations = 100000;     // iterations + warmup
  double min_bucket_cap_bytes = 1024;  // sgd bucket cap, checked only on more GPUs than:
  int64_t bucket_cap_min_gpus = 1024;
  size_t max_configurations = 10000;
  // Gradient accumulation: micro-batches simulated per configuration (its simulated GPUs x
  // micro-batches per step x iterations), each a forward and a backward of every GPU's.
  int64_t max_micro_batches = 20'000'000;
  double memory_bytes = 0;  // the machine's memory to compare estimates with (0: what it has available now)
};

// Measured cost of simulating one configuration (release build, one core; docs/hardening.md).
struct CostEstimate {
  double memory_bytes = 0;  // peak resident memory of the simulation process
  double startup_s = 0;     // wall time before the first iteration
  double iteration_s = 0;   // wall time per simulated iteration
};

// `gradient_buckets`: allreduces per iteration (the sgd bucket plan; 1 for a whole-model
// allreduce); `rings`: ring channels side by side. The per-iteration time grows with GPUs^1.55 x
// allreduces x rings^0.67, the memory with GPUs (the GPUs simulated: two nodes' for a folded run).
CostEstimate estimate_cost(int64_t gpus, size_t gradient_buckets, int rings = 1);
// With jitter nothing folds and the ranks reach each collective at their own instants, which
// costs a simulation more than the same GPUs without jitter: this factor over estimate_cost of
// every GPU (limits.cpp has the measurements).
inline constexpr double kJitterCostFactor = 2.5;

// Estimated wall time of simulating one configuration, warm-up included (estimate_cost of the GPUs
// it simulates x its iterations): what the limits add up, and what shards are balanced by.
double estimated_wall_s(const Scenario& scenario, const Configuration& configuration);

// Throws InputError `FILE: json.path: <what, estimated memory/time>; refusing (use --force to run
// anyway)` for the first limit the scenario exceeds.
void check_limits(const Scenario& scenario, const std::vector<Configuration>& configurations,
                  const Limits& limits = {});

// One simulation of `gpus` GPUs (any command): refused beyond limits.max_gpus, or when its
// estimated memory exceeds the machine's, as `FILE: PATH: <how><gpus> GPUs would need ...`
// (file and path may be empty for a command-line value).
// `simulated`: the GPUs the run simulates one by one when fewer (a symmetric fold), which set the
// memory estimate; 0: all of them.
void check_gpu_limit(int64_t gpus, const std::string& file, const std::string& path, const std::string& how,
                     size_t gradient_buckets, const Limits& limits = {}, int rings = 1,
                     int64_t simulated = 0);

// The GPUs a configuration's run simulates one by one: all, or two nodes' when it folds.
int64_t simulated_gpus(const Scenario& scenario, const Configuration& configuration);
// The machine's physical memory in bytes (0 when unknown).
double physical_memory_bytes();
// What can be allocated now without swapping (/proc/meminfo MemAvailable; the physical memory
// where that is not known): what a run's estimate is compared with.
double available_memory_bytes();

// "610 GiB", "1.3 MiB", "512 B"; "4.4 h", "12 min", "3.0 s", "2.1 days".
std::string human_bytes(double bytes);
std::string human_duration(double seconds);

}  // namespace dasim::scenario
