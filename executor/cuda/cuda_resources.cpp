#include "cuda/cuda_resources.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::executor {

void cuda_check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw RuntimeFailure(fmt::format("{} failed: {}", what, cudaGetErrorString(rc)));
}
void cublas_check(cublasStatus_t rc, const char* what) {
  if (rc != CUBLAS_STATUS_SUCCESS)
    throw RuntimeFailure(fmt::format("{} failed: cuBLAS status {}", what, int(rc)));
}
void cudnn_check(cudnnStatus_t rc, const char* what) {
  if (rc != CUDNN_STATUS_SUCCESS)
    throw RuntimeFailure(fmt::format("{} failed: {}", what, cudnnGetErrorString(rc)));
}
void nccl_check(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) throw RuntimeFailure(fmt::format("{} failed: {}", what, ncclGetErrorString(rc)));
}

CudaStream make_stream() {
  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return CudaStream(s);
}

CudaEvent make_event() {
  cudaEvent_t e = nullptr;
  cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  return CudaEvent(e);
}

namespace {

void* device_bytes(int64_t count, size_t size) {
  void* p = nullptr;
  cuda_check(cudaMalloc(&p, static_cast<size_t>(std::max<int64_t>(count, 1)) * size), "cudaMalloc");
  return p;
}
void* pinned_bytes(int64_t count, size_t size) {
  void* p = nullptr;
  cuda_check(cudaMallocHost(&p, static_cast<size_t>(std::max<int64_t>(count, 1)) * size), "cudaMallocHost");
  return p;
}

}  // namespace

DeviceFloats device_floats(int64_t count) {
  return DeviceFloats(static_cast<float*>(device_bytes(count, sizeof(float))));
}
DeviceInts device_ints(int64_t count) {
  return DeviceInts(static_cast<int32_t*>(device_bytes(count, sizeof(int32_t))));
}
PinnedFloats pinned_floats(int64_t count) {
  return PinnedFloats(static_cast<float*>(pinned_bytes(count, sizeof(float))));
}
PinnedInts pinned_ints(int64_t count) {
  return PinnedInts(static_cast<int32_t*>(pinned_bytes(count, sizeof(int32_t))));
}

}  // namespace dasim::executor
