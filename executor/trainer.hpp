// The training loop of dasim-train over MPI: one rank is one worker, running the schedule of
// ALGORITHMS.md and timing every step.
//   sgd:       gradient buckets; each bucket's MPI_Iallreduce starts as soon as backward has
//              produced it and is progressed by MPI_Test between the remaining layers; the update
//              waits for all of them.
//   local_sgd: local steps; every tau steps a blocking allreduce averages the weights.
//   dasgd:     every tau steps a snapshot's MPI_Iallreduce starts and is progressed by MPI_Test
//              between the layers of the next `delay` steps; at k0 + delay the rank waits for it and
//              sets w <- avg + (w - snapshot).
// Per step it records the loss, wall time, compute time, time communication was in flight and
// time the rank waited for communication (exposed).
#pragma once

#include "dataset.hpp"
#include "mlp.hpp"
#include "options.hpp"
#include "step_record.hpp"

#include <mpi.h>

namespace dasim::executor {

// Throws RuntimeFailure, on every rank alike, when --check-consistency finds weights that are not
// as the schedule implies (identical or different across ranks).
TrainOutput train(const TrainOptions& options, Mlp& model, const Dataset& data, MPI_Comm comm);

}  // namespace dasim::executor
