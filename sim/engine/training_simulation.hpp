// One training configuration simulated end to end: platform + workload + calibration + schedule
// + collective -> per-iteration time, compute (and its slowdown by the collectives beside it),
// communication in flight and exposed waits,
// averaged over the measured window (warm-up excluded) and over workers.
#pragma once

#include "calibration/calibration.hpp"
#include "collectives/collective_types.hpp"
#include "platform/platform_spec.hpp"
#include "schedules/schedule_spec.hpp"
#include "workers/worker_record.hpp"
#include "workload/workload.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dasim::engine {

struct TrainingConfig {
  platform::PlatformSpec platform;
  workload::Workload workload;
  calibration::Calibration calibration;
  // Mixed sites (platform.site_platforms): each site's calibration, in site order (the first is
  // `calibration`); its GPUs compute with it. Empty: `calibration` for every GPU.
  std::vector<calibration::Calibration> site_calibrations;
  std::string precision = "fp32";  // the workload's precision mode (the compute model maps it)
  int batch_per_gpu = 32;
  schedules::ScheduleSpec schedule;
  collectives::CollectiveOptions collective;
  int warmup_iterations = 2;
  int measured_iterations = 8;
  double jitter_stddev = 0;
  uint64_t seed = 1;
  std::map<int, double> slowdown_by_rank;  // stragglers
  int trace_ranks = 0;                     // record a timeline of the first N ranks (0: none)
  // The input pipeline of one node's host (the CPUs decoding and augmenting the samples of all its
  // GPUs): samples per second it prepares in all, shared evenly by the node's GPUs, so each of
  // platform.gpus_per_node GPUs gets this / gpus_per_node (the 1-GPU baseline the whole host).
  // A per-GPU loader slower than that share (calibration input_per_sample_s) sets the rate
  // instead. 0: the host keeps up whatever the GPUs ask.
  double host_input_samples_per_s = 0;
};

// The timeline of one traced rank: what it computed, communicated and waited for, and when.
struct RankTrace {
  int rank = 0;
  std::vector<workers::TraceEvent> events;
};

struct TrainingResult {
  double iter_time_s = 0;
  double compute_s = 0;
  // Of compute_s, the time compute took beyond its own because a collective ran beside it
  // (calibration compute_slowdown_under_collective).
  double compute_slowdown_s = 0;
  double comm_s = 0;
  double exposed_comm_s = 0;
  double comm_max_s = 0;  // the slowest rank's per-iteration comm and exposed time
  double exposed_comm_max_s = 0;
  double input_wait_s = 0;      // per iteration, mean over workers: waiting for the loader
  std::string algorithms_used;  // the collectives' resolved algorithm/protocol choices, "+"-joined
  double step_compute_s = 0;    // the plan's compute of one step without jitter or stragglers
  int measured_iterations = 0;
  // The nodes simulated one by one: the platform's, or 2 when a symmetric run was folded
  // (symmetric_fold.hpp), and why it was not folded (empty when it was).
  int simulated_nodes = 0;
  std::string fold_why_not;
  std::vector<RankTrace> trace;  // the first trace_ranks ranks, when trace_ranks > 0
};

// Simulates in the calling process (one SimGrid engine: wrap in run_isolated).
TrainingResult simulate_training(const TrainingConfig& config);

}  // namespace dasim::engine
