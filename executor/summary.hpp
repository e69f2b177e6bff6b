// Turns the per-rank step records of a run into what dasim-train writes: the result row in the
// shared schema (source = measured), the loss curve, steps and wall time to the target loss, the
// run's configuration, and the --profile workload JSON. Pure functions, so they are unit-tested
// without MPI.
#pragma once

#include "convergence/steps_to_target.hpp"
#include "options.hpp"
#include "results/result_row.hpp"
#include "step_record.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dasim::executor {

struct RunDescription {
  TrainOptions options;
  std::vector<int> widths;
  int64_t params = 0;
  int ranks = 1;
  std::vector<std::string> hosts;  // per rank
  std::string mpi_library;
  std::string blas;
  std::string dataset;
  std::vector<workload::Bucket> buckets;
  int consistency_checks = 0;
  std::vector<double> drain_s;    // per rank: the end-of-run wait for an average still in flight (dasgd)
  nlohmann::ordered_json verify;  // null unless --verify ran
};

double median(std::vector<double> values);

// Mean over ranks, per step. `per_rank[r][k]`.
std::vector<double> mean_over_ranks(const std::vector<std::vector<StepRecord>>& per_rank,
                                    double StepRecord::*field);

// First step (1-based) at which the mean loss over the last `window` steps is <= target.
using convergence::steps_to_target;

// Name of the model, e.g. "mlp-64x256x256x10".
std::string model_name(const std::vector<int>& widths);

// Distinct host names in rank order, joined with "+".
std::string platform_name(const std::vector<std::string>& hosts);

// Steady-state statistics over steady_window() (whole synchronisation periods after the warm-up):
// iteration time is the mean over steps of the slowest rank's step time; compute, comm and exposed
// are means over ranks and steps. The end-of-run drain is not a step: extra `drain_s` (slowest rank).
// Throws std::invalid_argument when the window is empty (options.cpp rejects such runs first).
results::ResultRow make_result_row(const RunDescription& run,
                                   const std::vector<std::vector<StepRecord>>& per_rank);

// Buckets as the output JSON lists them: [{"layers": [first, last], "bytes": n}, ...].
nlohmann::ordered_json buckets_json(const std::vector<workload::Bucket>& buckets);

// What `dasim-train --print-plan` prints: the model, the sgd gradient buckets (planned whatever the
// schedule, so a caller learns every message size), the weights' bytes and the timed window, as
// the run would use them; analysis/ asks for this instead of re-deriving the plans.
nlohmann::ordered_json make_plan(const TrainOptions& o, const std::vector<int>& widths);

nlohmann::ordered_json make_output(const RunDescription& run,
                                   const std::vector<std::vector<StepRecord>>& per_rank, double wall_time_s);

// Workload JSON of the model at the run's batch: per-layer FLOPs and bytes per sample from the
// widths, times as the median over the post-warmup steps of `forward_s[step][layer]`, and
// update_time_s as the median over those steps of the step's compute (`step_compute_s[step]`)
// minus its layer times: the optimizer update and batch copy, measured rather than modelled.
nlohmann::ordered_json make_profile(const std::vector<int>& widths, int batch, int warmup_steps,
                                    const std::vector<std::vector<double>>& forward_s,
                                    const std::vector<std::vector<double>>& backward_s,
                                    const std::vector<double>& step_compute_s, const std::string& source);

}  // namespace dasim::executor
