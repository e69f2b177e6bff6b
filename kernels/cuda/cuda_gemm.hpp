// One cuBLAS GEMM problem on the device, shared by the GEMM sweep and the interference benchmark:
// A, B and C filled with small non-zero values, and the call C = A B (cublasGemmEx, column-major,
// no transposes, FP32 accumulation) enqueued on the handle's stream.
#pragma once

#include "cuda/cuda_common.hpp"

#include <string>
#include <vector>

namespace dasim::kernels::cuda {

struct GemmPrecision {
  const char* name;  // fp32 | tf32 | fp16 | bf16
  cudaDataType_t data;
  cublasComputeType_t compute;
  DType dtype;
};

// fp32 (CUBLAS_COMPUTE_32F), tf32 (CUBLAS_COMPUTE_32F_FAST_TF32), fp16 and bf16 (tensor cores,
// CUBLAS_COMPUTE_32F accumulation).
const std::vector<GemmPrecision>& gemm_precisions();
const GemmPrecision& gemm_precision(const std::string& name);

class GemmOperands {
 public:
  GemmOperands(const GemmPrecision& precision, int m, int n, int k);
  void enqueue(cublasHandle_t handle) const;
  double flops() const { return 2.0 * m_ * n_ * k_; }

 private:
  const GemmPrecision& p_;
  int m_, n_, k_;
  DeviceBuffer a_, b_, c_;
};

}  // namespace dasim::kernels::cuda
