// The executor's MLP on a CUDA device: the same model, parameter layout and loss as mlp.hpp, with
// the GEMMs on cuBLAS, bias and column sums as cuBLAS rank-1 update / GEMV, ReLU on cuDNN, and the
// softmax cross-entropy on the host (batch x classes floats cross PCIe each step; small for an
// MLP classifier). All device work is issued on one compute stream.
#pragma once

#include "mlp.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdint>
#include <vector>

namespace dasim::executor {

// Throws RuntimeFailure naming the call when a CUDA, cuBLAS or cuDNN call fails.
void cuda_check(cudaError_t rc, const char* what);
void cublas_check(cublasStatus_t rc, const char* what);
void cudnn_check(cudnnStatus_t rc, const char* what);

class GpuMlp {
 public:
  // Copies `initial_weights` (the layout of Mlp) to the current device.
  GpuMlp(std::vector<int> widths, const std::vector<float>& initial_weights, int batch);
  ~GpuMlp();
  GpuMlp(const GpuMlp&) = delete;
  GpuMlp& operator=(const GpuMlp&) = delete;

  int layers() const { return static_cast<int>(widths_.size()) - 1; }
  int64_t param_count() const { return offsets_.back(); }
  int64_t layer_offset(int layer) const { return offsets_[layer]; }
  int64_t layer_params(int layer) const { return offsets_[layer + 1] - offsets_[layer]; }
  float* weights() { return weights_; }
  float* grads() { return grads_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t blas() const { return blas_; }

  // Forward, loss (host), backward into grads(). `hooks.backward_done(l)` runs once layer l's
  // gradient kernels are enqueued (not finished): a caller records an event on stream().
  float forward_backward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks = {});
  std::vector<float> weights_to_host() const;

 private:
  void relu_forward(const float* x, float* y, int64_t count);
  void relu_backward(const float* y, const float* dy, const float* x, float* dx, int64_t count);

  std::vector<int> widths_;
  std::vector<int64_t> offsets_;
  int batch_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
  cudnnActivationDescriptor_t relu_ = nullptr;
  cudnnTensorDescriptor_t tensor_ = nullptr;
  float* weights_ = nullptr;
  float* grads_ = nullptr;
  float* ones_ = nullptr;  // batch ones, for bias broadcast and column sums
  std::vector<float*> inputs_, pre_;
  float* delta_ = nullptr;
  float* delta_prev_ = nullptr;
  float* scratch_ = nullptr;
  std::vector<float> host_logits_, host_delta_;
};

}  // namespace dasim::executor
