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

// Times `fn` (which enqueues work on `stream`) with CUDA events, one pair per repetition on an idle
// GPU: the sample includes whatever time the host takes to enqueue the work (launch rates, copies
// from pageable memory).
Stats time_events(const std::function<void()>& fn, cudaStream_t stream, int warmup, int reps);

// Times the GPU's work of `fn` alone: each repetition is enqueued behind a kernel that holds the
// stream for longer than the host takes to enqueue `fn` (3x the last warm-up call's enqueue time
// plus 20 us; a repetition the host outruns is measured again behind twice its enqueue time, up
// to 20 ms), so the event pair brackets the kernels running back to back, as in a framework whose
// host runs ahead of the GPU. Without the hold,
// cuDNN's legacy API (about 0.1 ms of host time per convolution call on an H200 machine with cuDNN
// 9.19) made small convolutions read 2-5x slower than PyTorch's kernels of the same shapes.
Stats time_gpu(const std::function<void()>& fn, cudaStream_t stream, int warmup, int reps);

// Enqueues a one-thread kernel on `stream` that spins for `seconds` (the GPU's global timer).
void hold_stream(cudaStream_t stream, double seconds);

}  // namespace dasim::kernels::cuda
