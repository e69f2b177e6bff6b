// Owning handles for the CUDA, cuBLAS, cuDNN and NCCL objects of the GPU trainer: each is released
// exactly once, also when a constructor throws half-way (a failed cudaMalloc after a stream was
// created must not leak the stream). The destroy functions' status is ignored: nothing can be done
// about a failure to free while unwinding.
#pragma once

#include "common/errors.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <type_traits>

namespace dasim::executor {

// Throws RuntimeFailure naming the call when a CUDA, cuBLAS, cuDNN or NCCL call fails.
void cuda_check(cudaError_t rc, const char* what);
void cublas_check(cublasStatus_t rc, const char* what);
void cudnn_check(cudnnStatus_t rc, const char* what);
void nccl_check(ncclResult_t rc, const char* what);

template <class Handle, auto destroy>
struct HandleDeleter {
  using pointer = Handle;
  void operator()(Handle h) const { (void)destroy(h); }
};
template <class Handle, auto destroy>
using UniqueHandle = std::unique_ptr<std::remove_pointer_t<Handle>, HandleDeleter<Handle, destroy>>;

using CudaStream = UniqueHandle<cudaStream_t, cudaStreamDestroy>;
using CudaEvent = UniqueHandle<cudaEvent_t, cudaEventDestroy>;
using CublasHandle = UniqueHandle<cublasHandle_t, cublasDestroy>;
using CudnnHandle = UniqueHandle<cudnnHandle_t, cudnnDestroy>;
using CudnnActivation = UniqueHandle<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>;
using CudnnTensor = UniqueHandle<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using NcclComm = UniqueHandle<ncclComm_t, ncclCommDestroy>;
using DeviceFloats = UniqueHandle<float*, cudaFree>;
using DeviceInts = UniqueHandle<int32_t*, cudaFree>;
using PinnedFloats = UniqueHandle<float*, cudaFreeHost>;  // page-locked host memory
using PinnedInts = UniqueHandle<int32_t*, cudaFreeHost>;

CudaStream make_stream();                   // non-blocking with respect to the default stream
CudaEvent make_event();                     // without timing
DeviceFloats device_floats(int64_t count);  // at least one float, uninitialised
DeviceInts device_ints(int64_t count);      // at least one int32, uninitialised
PinnedFloats pinned_floats(int64_t count);  // at least one float, uninitialised
PinnedInts pinned_ints(int64_t count);      // at least one int32, uninitialised

}  // namespace dasim::executor
