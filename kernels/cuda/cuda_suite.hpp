// The CUDA calibration suite: cuBLAS GEMM sweeps in FP32, TF32, FP16 and BF16 (square sizes and
// the workloads' GEMM shapes), cuDNN conv forward / backward-data / backward-filter for every
// distinct conv shape, elementwise and SGD-update kernels (memory bandwidth), an empty kernel
// (launch overhead), cudaMemcpy H2D / D2H (pinned and pageable) and D2D, peer-to-peer copies when
// there are several GPUs, and NCCL allreduce across the local GPUs when there are two or more.
#pragma once

#include "suite_options.hpp"
#include "suite_result.hpp"

namespace dasim::kernels {

// Throws RuntimeFailure "no CUDA device found: <reason>; use --device cpu" without a usable GPU.
SuiteResult run_cuda_suite(const SuiteOptions& options);

namespace cuda {
// The parts, each appending to `result` (device 0 unless said otherwise).
void run_gemm_benchmarks(const SuiteOptions& options, SuiteResult& result);
void run_conv_benchmarks(const SuiteOptions& options, SuiteResult& result);
void run_memory_benchmarks(const SuiteOptions& options, int device_count, SuiteResult& result);
void run_nccl_benchmarks(const SuiteOptions& options, int device_count, SuiteResult& result);
// Bandwidth kernels and the empty kernel (cuda_kernels.cu).
void run_bandwidth_kernels(const SuiteOptions& options, SuiteResult& result);
}  // namespace cuda

}  // namespace dasim::kernels
