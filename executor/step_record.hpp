// What the trainer measures per step and returns per run; plain data shared by the MPI trainer and
// the summary code (which has no MPI dependency, so it is unit-tested without a launcher).
#pragma once

#include "bucket_plan.hpp"

#include <vector>

namespace dasim::executor {

struct StepRecord {
  double loss = 0;
  double wall_s = 0;
  double compute_s = 0;  // wall minus time inside MPI calls
  double comm_s = 0;     // time at least one collective was in flight
  double exposed_s = 0;  // time spent waiting for communication to finish
};
constexpr int kStepRecordFields = 5;

struct TrainOutput {
  std::vector<StepRecord> steps;
  std::vector<std::vector<double>> forward_s, backward_s;  // [step][layer], only with --profile
  std::vector<Bucket> buckets;                             // sgd only
  int consistency_checks = 0;                              // steps whose weight hashes were compared
};

}  // namespace dasim::executor
