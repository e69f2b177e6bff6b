// What the trainer measures per step and returns per run; plain data shared by the MPI trainer and
// the summary code (which has no MPI dependency, so it is unit-tested without a launcher).
#pragma once

#include "workload/buckets.hpp"

#include <vector>

namespace dasim::executor {

struct StepRecord {
  double loss = 0;
  double wall_s = 0;
  double compute_s = 0;  // wall minus exposed: the rank's own work
  double comm_s = 0;     // time at least one collective was in flight
  // Time inside communication calls: waits, starts and progress polls. A host-progressed MPI
  // collective (shared memory, TCP) does its copies and reductions inside MPI_Test and the start
  // call on the rank's own core, so that time is communication the rank did not overlap.
  double exposed_s = 0;
  double wait_s = 0;  // the part of exposed_s spent blocked in a wait (MPI_Wait, blocking allreduce)
};

// The flat form in which ranks gather their records (MPI_DOUBLE): kStepRecordFields doubles per
// step in the order of the struct. pack appends to `out`; unpack reads `steps` records.
constexpr int kStepRecordFields = 6;
inline void pack(const StepRecord& r, std::vector<double>& out) {
  out.insert(out.end(), {r.loss, r.wall_s, r.compute_s, r.comm_s, r.exposed_s, r.wait_s});
}
inline std::vector<StepRecord> unpack_step_records(const double* values, int steps) {
  std::vector<StepRecord> records(static_cast<size_t>(steps));
  for (int k = 0; k < steps; ++k) {
    const double* v = values + static_cast<size_t>(k) * kStepRecordFields;
    records[static_cast<size_t>(k)] = {v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  return records;
}

struct TrainOutput {
  std::vector<StepRecord> steps;
  std::vector<std::vector<double>> forward_s, backward_s;  // [step][layer], only with --profile
  std::vector<workload::Bucket> buckets;                   // sgd only
  int consistency_checks = 0;                              // steps whose weight hashes were compared
  // dasgd: waiting for (and applying) an average still in flight after the last step. Not part of
  // any step: the steady state has no end of run, and `dasim run` drains after its last iteration too.
  double drain_s = 0;
};

}  // namespace dasim::executor
