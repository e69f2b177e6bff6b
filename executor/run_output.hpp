// What dasim-train does after training: rank 0 gathers every rank's step records, host name and
// (for --verify) weights, reruns the schedule serially when asked, and writes the result JSON, the
// CSV row in the shared schema and the --profile workload.
#pragma once

#include "dataset.hpp"
#include "mlp.hpp"
#include "options.hpp"
#include "step_record.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace dasim::executor {

// What rank 0 gathers from every rank: step records, drain time, host name, and (--verify) weights.
struct Gathered {
  std::vector<std::vector<StepRecord>> per_rank;
  std::vector<double> drain_s;
  std::vector<std::string> hosts;
  std::vector<float> all_weights;
};

// Collective over `comm`: every rank calls it; only rank 0's result is filled.
Gathered gather_on_rank0(const TrainOptions& o, const TrainOutput& trained, const Mlp& model, MPI_Comm comm);

// Rank 0. Returns the exit status (1 when --verify fails or a file cannot be written).
int write_results(const TrainOptions& o, const std::vector<int>& widths, const Mlp& model,
                  const Dataset& data, const TrainOutput& trained, const Gathered& g, int ranks,
                  double wall_time_s);

}  // namespace dasim::executor
