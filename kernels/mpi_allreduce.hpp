// MPI allreduce between local ranks, as part of the CPU suite: runs the helper binary
// dasim-mpi-allreduce-bench under mpirun (2 ranks), reads its OSU-style table with the same
// parser `dasim fit-links` uses, records one measurement per message size and fits alpha-beta.
// Without mpirun or the helper, the suite records a note and goes on.
#pragma once

#include "suite_options.hpp"
#include "suite_result.hpp"

#include <nlohmann/json.hpp>

namespace dasim::kernels {

// Appends the allreduce measurements to result.measurements, and the alpha-beta fit (the
// `dasim fit-links` report, "link" = {"bandwidth", "latency"}) to result.links["mpi_allreduce_local"].
void run_mpi_allreduce(const SuiteOptions& options, SuiteResult& result);

}  // namespace dasim::kernels
