// --check-consistency: after a step, all ranks compare a hash of their weights (one allreduce) with
// what the schedule implies: sgd always identical; local_sgd identical right after an averaging and
// different between; dasgd identical only where no local progress was added back.
#pragma once

#include "schedules/periods.hpp"

#include <mpi.h>

#include <vector>

namespace dasim::executor {

// Throws RuntimeFailure, on every rank alike, when the weights are not as the schedule implies.
void check_weights_consistency(const schedules::ScheduleSpec& s, long step, long last_step,
                               const std::vector<float>& w, MPI_Comm comm, int ranks);

}  // namespace dasim::executor
