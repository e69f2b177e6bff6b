// The CPU calibration suite: OpenBLAS sgemm sweeps (square sizes and the workloads' GEMM shapes),
// every distinct conv shape forward / backward-data / backward-filter through im2col + sgemm, a
// STREAM-like triad for memory bandwidth, the cost of a minimal sgemm call (the CPU's "launch
// overhead"), and an MPI allreduce sweep between two local ranks (run through mpirun).
#pragma once

#include "suite_options.hpp"
#include "suite_result.hpp"

namespace dasim::kernels {

SuiteResult run_cpu_suite(const SuiteOptions& options);

// The pieces, exposed so tests can run them alone.
Measurement measure_sgemm(int m, int n, int k, int warmup, int reps, const std::string& name);
Measurement measure_triad(size_t elements, int warmup, int reps);
Measurement measure_call_overhead(int reps);
DeviceInfo cpu_device_info();

}  // namespace dasim::kernels
