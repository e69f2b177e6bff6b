// The CUDA calibration suite: cuBLAS GEMM sweeps in FP32, TF32, FP16 and BF16 (squares and
// transformer-like shapes, then the workloads' GEMM shapes), cuDNN conv forward / backward-data /
// backward-filter for every distinct conv shape at every batch, BatchNorm + ReLU fused and as two
// kernels, elementwise and SGD-update kernels (memory bandwidth), an empty kernel (launch
// overhead), a large GEMM alone and under a concurrent NCCL allreduce (interference), cudaMemcpy
// H2D / D2H (pinned and pageable) and D2D, peer-to-peer copies when there are several GPUs, and an
// NCCL allreduce sweep across the local GPUs when there are two or more. TF32 and BF16 need
// sm_80 or later and are skipped, with a note, on older GPUs.
#pragma once

#include "suite_options.hpp"
#include "suite_result.hpp"

namespace dasim::kernels {

// Throws RuntimeFailure "no CUDA device found: <reason>; use --device cpu" without a usable GPU.
SuiteResult run_cuda_suite(const SuiteOptions& options);

namespace cuda {

// What the parts need to know of the machine: GPU 0's compute capability (major * 10 + minor)
// and how many GPUs are visible.
struct DeviceCaps {
  int sm = 0;
  int device_count = 0;
};

// True when precision ("fp32", "tf32", "fp16", "bf16") runs natively on a GPU of compute
// capability sm: tf32 and bf16 from sm_80 (Ampere), fp16 and fp32 everywhere.
bool supports_precision(int sm, const std::string& precision);

// The parts, each appending to `result` (device 0 unless said otherwise).
void run_gemm_benchmarks(const SuiteOptions& options, const DeviceCaps& caps, SuiteResult& result);
void run_conv_benchmarks(const SuiteOptions& options, const DeviceCaps& caps, SuiteResult& result);
void run_bn_relu_benchmarks(const SuiteOptions& options, SuiteResult& result);
void run_interference_benchmark(const SuiteOptions& options, const DeviceCaps& caps, SuiteResult& result);
void run_memory_benchmarks(const SuiteOptions& options, int device_count, SuiteResult& result);
void run_nccl_benchmarks(const SuiteOptions& options, int device_count, SuiteResult& result);
// Bandwidth kernels and the empty kernel (cuda_kernels.cu).
void run_bandwidth_kernels(const SuiteOptions& options, SuiteResult& result);

}  // namespace cuda

}  // namespace dasim::kernels
