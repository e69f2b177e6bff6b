// Shared helpers of the CUDA suite: error checks that turn a failed CUDA / cuBLAS call into a
// RuntimeFailure naming the call, device buffers that free themselves, and CUDA-event timing
// (warm-up, then one event pair per repetition, so each sample is the GPU time of one call).
#pragma once

#include "common/errors.hpp"
#include "stats.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <functional>

namespace dasim::kernels::cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw RuntimeFailure(fmt::format("CUDA: {}: {}", what, cudaGetErrorString(status)));
}
inline void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw RuntimeFailure(fmt::format("cuBLAS: {}: status {}", what, static_cast<int>(status)));
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    check(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), "cudaMalloc");
    check(cudaMemset(ptr_, 0, bytes), "cudaMemset");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

enum class DType { f32, f16, bf16 };
inline size_t bytes_of(DType t) {
  return t == DType::f32 ? 4 : 2;
}
// Fills `elements` values of type `t` with small non-zero pseudo-random numbers (cuda_kernels.cu):
// all-zero inputs would draw less power and report optimistic clocks.
void fill_values(void* ptr, size_t elements, DType t);

// Times `fn` (which enqueues work on `stream`) with CUDA events.
Stats time_events(const std::function<void()>& fn, cudaStream_t stream, int warmup, int reps);

}  // namespace dasim::kernels::cuda
