// dasim-train --device cuda: the schedules of trainer.hpp with the model on one GPU per rank
// (cuBLAS/cuDNN, gpu_mlp.hpp) and the collectives on NCCL, issued on a side stream so they overlap
// the compute stream:
//   sgd:       after backward has enqueued a bucket's last layer, an event on the compute stream
//              gates its ncclAllReduce on the communication stream; the update waits for all of them.
//   local_sgd: every tau steps, ncclAllReduce of the weights, waited for at once (blocking).
//   dasgd:     every tau steps, a device copy of the weights (the snapshot) is allreduced on the
//              communication stream during the next `delay` steps; at k0 + delay the rank waits for
//              it and sets w <- avg + (w - snapshot).
// MPI only bootstraps NCCL (the unique id) and carries the consistency check and the results.
// Completion is polled with cudaEventQuery between layers; waits are host waits under the watchdog.
#pragma once

#include "dataset.hpp"
#include "options.hpp"
#include "step_record.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace dasim::executor {

// Empty when this rank can use a CUDA device, else why not (no device, driver missing).
std::string cuda_device_problem();

// Trains `widths` from `initial_weights`; leaves the final weights in `final_weights`. Throws
// RuntimeFailure on a CUDA/NCCL error or a failed consistency check.
TrainOutput train_gpu(const TrainOptions& options, const std::vector<int>& widths,
                      const std::vector<float>& initial_weights, const Dataset& data, MPI_Comm comm,
                      std::vector<float>& final_weights);

}  // namespace dasim::executor
