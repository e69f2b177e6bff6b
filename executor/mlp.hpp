// A multi-layer perceptron trained with softmax cross-entropy: the executor's real model.
// Layers are fully connected (y = x W^T + b), ReLU between them, softmax on the last; forward and
// backward run on BLAS (cblas_sgemm). All parameters live in one flat buffer (layer 0's W then b,
// then layer 1's, ...) and so do the gradients: a contiguous range of layers is one contiguous
// slice, which is what a gradient bucket or a weight allreduce sends.
//
// Hooks let a schedule act between layers without the model knowing about MPI: `poll` runs after
// every layer of forward and backward (to progress non-blocking collectives), `backward_done(l)`
// right after layer l's gradient is complete (to start a bucket's allreduce). Sharded data
// parallelism also needs `forward_begin(l)` / `backward_begin(l)` before layer l reads its weights
// (to wait for their all-gather) and `forward_done(l)` after its forward (to free them); the time
// spent in those hooks is not counted as the layer's.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace dasim::executor {

// Mean softmax cross-entropy of `logits` (batch x classes, row-major) against labels `y`; writes
// dLoss/dlogits = (softmax - onehot) / batch into `delta`. Shared by the CPU and GPU models.
double softmax_cross_entropy(const float* logits, const int32_t* y, int batch, int classes, float* delta);

struct MlpHooks {
  std::function<void()> poll;
  std::function<void(int layer)> backward_done;
  std::function<void(int layer)> forward_begin, forward_done, backward_begin;
};

class Mlp {
 public:
  // widths = {inputs, hidden..., classes}; at least one layer. Weights are He-initialised from
  // `seed` (counter-based, so every rank starts from the same model), biases are zero.
  Mlp(std::vector<int> widths, uint64_t seed);

  const std::vector<int>& widths() const { return widths_; }
  int layers() const { return static_cast<int>(widths_.size()) - 1; }
  int64_t param_count() const { return static_cast<int64_t>(weights_.size()); }
  int64_t layer_offset(int layer) const { return offsets_[layer]; }
  int64_t layer_params(int layer) const { return offsets_[layer + 1] - offsets_[layer]; }

  std::vector<float>& weights() { return weights_; }
  const std::vector<float>& weights() const { return weights_; }
  const std::vector<float>& grads() const { return grads_; }
  std::vector<float>& grads() { return grads_; }

  // Forward, mean cross-entropy loss over the batch, backward into grads(), or added to them when
  // `add_to_grads` (the micro-batches after a step's first, under gradient accumulation). Returns
  // the loss.
  float forward_backward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks = {},
                         bool add_to_grads = false);
  // Forward and loss only (no gradient), e.g. for finite-difference checks.
  float loss(const float* x, const int32_t* y, int batch);

  // Wall time of each layer in the last forward_backward (the loss is counted in the last layer's
  // forward; the first layer's backward computes no input gradient, as nothing consumes it).
  const std::vector<double>& forward_times_s() const { return forward_times_s_; }
  const std::vector<double>& backward_times_s() const { return backward_times_s_; }

 private:
  float forward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks);

  std::vector<int> widths_;
  std::vector<int64_t> offsets_;  // layers()+1 entries into weights_
  std::vector<float> weights_, grads_;
  std::vector<std::vector<float>> inputs_;  // input of each layer (batch x widths_[l])
  std::vector<std::vector<float>> pre_;     // pre-activation output of each layer
  std::vector<float> delta_, delta_prev_;
  std::vector<double> forward_times_s_, backward_times_s_;
};

}  // namespace dasim::executor
