// A scenario file: which platforms (and node counts), workloads, batch, schedules, collective and
// iteration counts to simulate, optionally sweeping one platform parameter or the host's input
// rate (sweep.hpp). expand() lists the configurations it stands for, in a fixed order (the order
// of the results file).
// The format is documented in docs/file-formats.md.
#pragma once

#include "calibration/calibration.hpp"
#include "calibration/gpu_spread.hpp"
#include "collectives/collective_types.hpp"
#include "convergence/convergence_model.hpp"
#include "platform/platform_spec.hpp"
#include "schedules/schedule_spec.hpp"
#include "workload/workload.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dasim::scenario {

struct PlatformEntry {
  platform::PlatformSpec spec;  // as loaded (its own node count); configurations override nodes
  std::vector<int> nodes;       // node counts to simulate
  std::string calibration_file;
  std::string calibration_sha256;  // of the file's bytes: results name the calibration by content
  calibration::Calibration calibration;
  // Mixed sites: each site's GPU calibration (its platform's node.gpu.calibration), in site
  // order; `calibration` is the first site's. Empty otherwise.
  std::vector<calibration::Calibration> site_calibrations;
  // platforms[i].host_input.samples_per_s: this platform's hosts (a DGX-1's CPUs are not a DGX
  // A100's); 0 without it: the scenario's host_input.
  double host_input_samples_per_s = 0;
};

struct Sweep {
  std::string parameter;  // one of scenario::sweep_parameters() (sweep.hpp)
  std::vector<double> values;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::vector<PlatformEntry> platforms;
  // The workloads as listed, at precisions[0]; workloads_by_precision[k] the same at precisions[k].
  std::vector<workload::Workload> workloads;
  std::vector<std::vector<workload::Workload>> workloads_by_precision;
  // batch_per_gpu and precision take one value or a list, each value a configuration of its own.
  std::vector<int> batches{32};
  std::vector<std::string> precisions{"fp32"};  // workload precision modes (workload/precision.hpp)
  std::string fusion = "none";                  // workload/fusion.hpp
  // What speedup and efficiency are relative to: the same schedule on this many GPUs (1, or whole
  // nodes of every platform), or on one node of each platform (baseline_one_node).
  int baseline_gpus = 1;
  bool baseline_one_node = false;
  std::vector<schedules::ScheduleSpec> schedules;
  // Strong scaling (global_batch.hpp): samples per optimizer step at every GPU count, made up by
  // gradient accumulation; without it each schedule's own accumulation steps (weak scaling).
  std::optional<int64_t> global_batch;
  collectives::CollectiveOptions collective;
  int iterations = 8;
  int warmup = 4;
  double jitter_stddev = 0;
  uint64_t seed = 1;
  // host_input.samples_per_s: what one node's host prepares for all its GPUs together (each GPU
  // gets its share: engine::TrainingConfig), for platforms without their own; 0 without the
  // section (the host keeps up).
  double host_input_samples_per_s = 0;
  std::map<int, double> slowdown_by_rank;
  // Persistent per-GPU speed differences (calibration/gpu_spread.hpp): each configuration's and
  // each baseline's GPUs take their time factors from this measured population.
  std::optional<calibration::GpuSpread> gpu_spread;
  uint64_t gpu_spread_seed = 1;
  std::optional<Sweep> sweep;
  // Steps to a target loss per configuration (docs/time-to-accuracy.md); without it the results'
  // steps_to_target and time_to_target_s are empty.
  std::optional<convergence::ConvergenceModel> convergence;
  std::string convergence_file;
};

struct Configuration {
  size_t platform = 0;
  size_t workload = 0;
  size_t schedule = 0;
  size_t precision = 0;  // in Scenario::precisions
  int batch_per_gpu = 32;
  int nodes = 1;
  std::optional<double> sweep_value;
};

Scenario load_scenario(const std::string& file);
// Platforms, then workloads, precisions, batches, sweep values, schedules and node counts, each
// in the file's order.
std::vector<Configuration> expand(const Scenario& scenario);

// The configuration's workload at its precision.
const workload::Workload& workload_of(const Scenario& scenario, const Configuration& c);
// GPUs of the baseline a configuration on this platform is measured against.
int baseline_gpus(const Scenario& scenario, size_t platform);

}  // namespace dasim::scenario
