// The one result schema shared by the simulator (source = simulated) and the real executor
// (source = measured): one row per configuration, so predictions and measurements can be joined
// column by column. kResultColumns is the only list of the columns: it drives the CSV header and
// cells and the JSON keys, in this order, which is part of the file format
// (docs/file-formats.md); analysis/dasim_analysis/results_io.py reads the same list (a test checks).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dasim::results {

struct ResultRow {
  std::string scenario;
  std::string platform;
  std::string workload;
  std::string precision;          // the precision mode asked for: fp32 | tf32 | fp16 | bf16 | amp | amp_bf16
  std::string compute_precision;  // what the compute ran at: fp32 where the device has no rate for it
  std::string fusion;             // none | bn_relu
  std::string schedule;           // sgd | local_sgd | dasgd | diloco | streaming_diloco
  int tau = 1;                    // H for the DiLoCo family
  int delay = 0;                  // the overlap steps of streaming_diloco
  std::string schedule_detail;    // every parameter: schedules::describe(), e.g. "diloco(H=100,nesterov ...)"
  // The DDP bucket cap the gradients were allreduced in; NaN where no gradient is bucketed (a
  // periodic schedule without islands averages the whole model).
  double bucket_cap_bytes = std::numeric_limits<double>::quiet_NaN();
  std::string collective;  // the scenario's algorithm: auto | ring | tree | hierarchical | nvls | mpi | nccl
  std::string algorithms_used;  // what ran, algorithm/protocol, "+"-joined (auto resolves per collective)
  std::string progress;         // how collectives advance (collectives::Progress); empty when measured
  std::string granularity;      // coarse | fine (simulated); empty when measured
  int nodes = 1;
  int gpus = 1;
  // Nodes simulated one by one: `nodes`, or 2 when the run was symmetric and folded onto two of
  // its nodes (sim/engine/symmetric_fold.hpp); 0 in measured rows.
  int simulated_nodes = 0;
  // Why a simulated run of more than 2 nodes was not folded: the first condition of the fold that
  // did not hold ("the allreduce of 83513248 bytes runs tree/simple across fat-tree leaves");
  // empty when it was folded, and in measured rows.
  std::string not_folded_because;
  int batch_per_gpu = 1;
  int iterations = 0;  // timed iterations (steps) the figures are means over
  int warmup = 0;      // iterations run before them and not timed
  double iter_time_s = 0;
  // Samples per second over all GPUs. Named throughput_samples_s before: readers accept that name
  // in older files (it read as a time in seconds next to the _s columns).
  double samples_per_s = 0;
  // What speedup and efficiency are relative to: the same schedule on baseline_gpus GPUs, which
  // ran baseline_samples_per_s; NaN where no baseline was run (the executor without one).
  int baseline_gpus = 1;
  double baseline_samples_per_s = std::numeric_limits<double>::quiet_NaN();
  // speedup = samples_per_s / baseline_samples_per_s x baseline_gpus (in GPUs' worth of the
  // baseline's per-GPU throughput), efficiency = speedup / gpus.
  double speedup = 0;     // NaN when not known (no baseline): empty in CSV, null in JSON
  double efficiency = 0;  // the same
  double compute_s = 0;   // per iteration, mean over workers
  // Of compute_s, the time compute took beyond its own because a collective ran beside it on the
  // GPU (interference; per iteration, mean over workers). NaN when not known (measured rows).
  double compute_slowdown_s = std::numeric_limits<double>::quiet_NaN();
  double comm_s = 0;          // per iteration: time communication was in flight
  double exposed_comm_s = 0;  // per iteration: time a worker waited for communication
  // The slowest rank's figures (ranks of one collective can finish apart; iteration time follows
  // the slowest): max over workers of their per-iteration comm and exposed time.
  double comm_max_s = 0;
  double exposed_comm_max_s = 0;
  // Per iteration, mean over workers: the time a worker waited for its loader (the host's input
  // pipeline slower than the step; 0 when it keeps up). NaN when not known (measured rows: the
  // executor's step includes its loading).
  double input_wait_s = std::numeric_limits<double>::quiet_NaN();
  std::string source;  // simulated | measured
  // The calibration by file name and what it is ("h100.json (measured on NVIDIA H100)"), never a
  // path, so the same scenario gives the same row wherever it is run from; its content by hash.
  std::string calibration;
  std::string calibration_sha256;  // of the calibration file's bytes (sha256sum); empty when measured
  // Time to accuracy (docs/time-to-accuracy.md). Simulated: steps the scenario's convergence model
  // predicts for this configuration, x iter_time_s. Measured: the steps the run took to its target
  // loss and their wall time. NaN (empty, null) without a convergence model or a reached target.
  double steps_to_target = std::numeric_limits<double>::quiet_NaN();
  double time_to_target_s = std::numeric_limits<double>::quiet_NaN();
  // Extra columns (sweep parameters such as inter-node bandwidth); appended after the fixed ones.
  // Extra columns (the executor's): CSV cells as text; in JSON a number, null when empty, else text.
  std::vector<std::pair<std::string, std::string>> extra;
};

struct ResultColumn {
  std::string_view name;
  std::variant<std::string ResultRow::*, int ResultRow::*, double ResultRow::*> field;
};

inline const std::array<ResultColumn, 40> kResultColumns{{
    {"scenario", &ResultRow::scenario},
    {"platform", &ResultRow::platform},
    {"workload", &ResultRow::workload},
    {"precision", &ResultRow::precision},
    {"compute_precision", &ResultRow::compute_precision},
    {"fusion", &ResultRow::fusion},
    {"schedule", &ResultRow::schedule},
    {"tau", &ResultRow::tau},
    {"delay", &ResultRow::delay},
    {"schedule_detail", &ResultRow::schedule_detail},
    {"bucket_cap_bytes", &ResultRow::bucket_cap_bytes},
    {"collective", &ResultRow::collective},
    {"algorithms_used", &ResultRow::algorithms_used},
    {"progress", &ResultRow::progress},
    {"granularity", &ResultRow::granularity},
    {"nodes", &ResultRow::nodes},
    {"gpus", &ResultRow::gpus},
    {"simulated_nodes", &ResultRow::simulated_nodes},
    {"not_folded_because", &ResultRow::not_folded_because},
    {"batch_per_gpu", &ResultRow::batch_per_gpu},
    {"iterations", &ResultRow::iterations},
    {"warmup", &ResultRow::warmup},
    {"iter_time_s", &ResultRow::iter_time_s},
    {"samples_per_s", &ResultRow::samples_per_s},
    {"baseline_gpus", &ResultRow::baseline_gpus},
    {"baseline_samples_per_s", &ResultRow::baseline_samples_per_s},
    {"speedup", &ResultRow::speedup},
    {"efficiency", &ResultRow::efficiency},
    {"compute_s", &ResultRow::compute_s},
    {"compute_slowdown_s", &ResultRow::compute_slowdown_s},
    {"comm_s", &ResultRow::comm_s},
    {"exposed_comm_s", &ResultRow::exposed_comm_s},
    {"comm_max_s", &ResultRow::comm_max_s},
    {"exposed_comm_max_s", &ResultRow::exposed_comm_max_s},
    {"input_wait_s", &ResultRow::input_wait_s},
    {"source", &ResultRow::source},
    {"calibration", &ResultRow::calibration},
    {"calibration_sha256", &ResultRow::calibration_sha256},
    {"steps_to_target", &ResultRow::steps_to_target},
    {"time_to_target_s", &ResultRow::time_to_target_s},
}};

// The fixed column names, in order.
std::vector<std::string> result_columns();

// CSV with a header line; numbers printed with 9 significant digits so reruns are byte-identical.
// Fields holding a comma, a quote or a newline are quoted as RFC 4180 says.
std::string to_csv(const std::vector<ResultRow>& rows);
// Key order follows kResultColumns so JSON files read like the CSV.
nlohmann::ordered_json to_json(const ResultRow& row);
nlohmann::ordered_json to_json(const std::vector<ResultRow>& rows);
// The row to_json() wrote (null = NaN; keys after the fixed ones = extra columns as CSV text);
// InputError `FILE: PATH.key: what was expected` for anything else.
ResultRow row_from_json(const nlohmann::json& row, const std::string& file, const std::string& path);

}  // namespace dasim::results
