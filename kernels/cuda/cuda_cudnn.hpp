// cuDNN helpers shared by the convolution and BN + ReLU parts of the CUDA suite: an error check
// that turns a failed cuDNN call into a RuntimeFailure naming the call, and a handle bound to its
// own stream that is released however the part ends. Included only where DASIM_HAVE_CUDNN is set.
#pragma once

#include "cuda/cuda_common.hpp"

#include <cudnn.h>

namespace dasim::kernels::cuda {

inline void check_cudnn(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw RuntimeFailure(fmt::format("cuDNN: {}: {}", what, cudnnGetErrorString(status)));
}

struct CudnnOnStream {
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  CudnnOnStream() {
    check_cudnn(cudnnCreate(&handle), "cudnnCreate");
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check_cudnn(cudnnSetStream(handle, stream), "cudnnSetStream");
  }
  ~CudnnOnStream() {
    if (handle) cudnnDestroy(handle);
    if (stream) cudaStreamDestroy(stream);
  }
  CudnnOnStream(const CudnnOnStream&) = delete;
  CudnnOnStream& operator=(const CudnnOnStream&) = delete;
};

}  // namespace dasim::kernels::cuda
