// Serial reference of the schedules: n model replicas trained one after the other in one
// process, with the averages computed by plain loops instead of MPI. `dasim-train --verify` runs it
// on rank 0 after training and compares every rank's final weights and the loss curve, so the
// MPI implementation (bucketed non-blocking allreduce, snapshot in flight for d steps) is checked
// against the definition in ALGORITHMS.md. --data-parallel fsdp has the arithmetic of ddp (the
// island's summed gradient, then the update), so the reference runs whole replicas for it too;
// only --bits differs, rounding each rank's shard of a fragment with its own scale.
#pragma once

#include "dataset.hpp"
#include "schedules/periods.hpp"

#include <cstdint>
#include <vector>

namespace dasim::executor {

struct ReferenceResult {
  std::vector<std::vector<float>> weights;  // final weights of each replica
  std::vector<double> mean_loss;            // per step, mean over replicas
};

// `shards[j]` is replica j's data; every replica starts from Mlp(widths, seed).
ReferenceResult run_reference(const schedules::ScheduleSpec& schedule, const std::vector<int>& widths,
                              uint64_t seed, const std::vector<Dataset>& shards, int batch, float lr,
                              int steps);

}  // namespace dasim::executor
