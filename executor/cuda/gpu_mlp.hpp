// The executor's MLP on a CUDA device: the same model, parameter layout and loss as mlp.hpp, with
// the GEMMs on cuBLAS, bias and column sums as cuBLAS rank-1 update / GEMV, ReLU on cuDNN, and the
// softmax cross-entropy in a kernel of its own (device_loss.hpp). All device work is issued on one
// compute stream; a step's host round trip is the batch's losses, read while backward runs.
// (The loss ran on the host until the first GPU run: 1,000 classes x batch 256 in double
// precision took most of an 8.3 ms step on an H200 machine whose GEMMs need about 1.7 ms.)
#pragma once

#include "cuda/cuda_resources.hpp"
#include "mlp.hpp"

#include <cstdint>
#include <vector>

namespace dasim::executor {

class GpuMlp {
 public:
  // Copies `initial_weights` (the layout of Mlp) to the current device.
  GpuMlp(std::vector<int> widths, const std::vector<float>& initial_weights, int batch);

  int layers() const { return static_cast<int>(widths_.size()) - 1; }
  int64_t param_count() const { return offsets_.back(); }
  int64_t layer_offset(int layer) const { return offsets_[layer]; }
  int64_t layer_params(int layer) const { return offsets_[layer + 1] - offsets_[layer]; }
  float* weights() { return weights_.get(); }
  float* grads() { return grads_.get(); }
  cudaStream_t stream() const { return stream_.get(); }
  cublasHandle_t blas() const { return blas_.get(); }

  // Forward, loss (device), backward into grads(); returns the batch's mean loss. `hooks.backward_done(l)`
  // runs once layer l's gradient kernels are enqueued (not finished): a caller records an event on stream().
  // As Mlp::forward_backward: `add_to_grads` adds this micro-batch's gradients to grads().
  float forward_backward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks = {},
                         bool add_to_grads = false);
  std::vector<float> weights_to_host() const;

 private:
  void relu_forward(const float* x, float* y, int64_t count);
  void relu_backward(const float* y, const float* dy, const float* x, float* dx, int64_t count);

  std::vector<int> widths_;
  std::vector<int64_t> offsets_;
  int batch_;
  CudaStream stream_;
  CublasHandle blas_;
  CudnnHandle dnn_;
  CudnnActivation relu_;
  CudnnTensor tensor_;
  DeviceFloats weights_, grads_;
  DeviceFloats ones_;  // batch ones, for bias broadcast and column sums
  std::vector<DeviceFloats> inputs_, pre_;
  DeviceFloats delta_, delta_prev_, scratch_;
  DeviceInts labels_;           // the batch's classes
  DeviceFloats row_loss_;       // each sample's loss
  PinnedInts host_labels_;      // staging for the labels' copy
  PinnedFloats host_row_loss_;  // where the losses land
  CudaEvent loss_ready_;        // recorded after the losses' copy
};

}  // namespace dasim::executor
