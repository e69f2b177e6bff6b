// Builders that turn an architecture description (a sequence of conv / norm / linear / attention
// calls) into Layers with FLOPs, parameters and activation bytes derived from the shapes, so the
// built-in models are generated from their definitions and no total is typed in.
//
// Conventions (docs/workloads.md repeats them):
// - A multiply-add is 2 FLOPs. Conv and linear FLOPs are exactly 2 x MACs (bias adds are not
//   counted: < 0.1% of the total for every built-in model).
// - Backward = 2 x forward for layers with weights (input gradient + weight gradient) and 1 x
//   forward for layers without. Exception 1: the first weighted layer of a CNN reads the input
//   images, which need no gradient, so its backward is the weight gradient only (1 x forward), as
//   in PyTorch where the input has requires_grad=False. Exception 2: the attention score products
//   (Q K^T and P V) multiply two activations, both of which need a gradient, so their backward is
//   2 x forward like a weighted layer; the softmax part is 1 x.
// - Element-wise cost per element: ReLU 1, residual add 1, normalization (BatchNorm/LayerNorm,
//   training mode: mean, variance, normalize, scale and shift) 8, GELU/tanh 8, softmax 5.
// - activation_bytes: elements read + written by the forward pass x activation bytes per element of the
//   training precision (weights are not included: they are read once per call, not per sample).
// - Dropout (p = 0.1 in BERT and GPT-2) is a layer where the model applies it: after the
//   embeddings, on the attention probabilities and on each residual branch before its add.
#pragma once

#include "workload/layer.hpp"
#include "workload/precision.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dasim::workload {

// Image models: tracks the current tensor shape (channels x height x width) per sample.
class CnnBuilder {
 public:
  CnnBuilder(Precision precision, int channels, int height, int width);

  struct Shape {
    int channels, height, width;
    double elements() const { return double(channels) * height * width; }
  };
  Shape shape() const { return shape_; }
  void set_shape(Shape shape) { shape_ = shape; }

  void conv(const std::string& name, int out_channels, int kernel, int stride, int pad, bool bias);
  // A conv whose kernel, stride or padding differ between height and width (Inception v3's 1x7
  // with pad (0, 3), 7x1 with pad (3, 0)).
  struct Window {
    int kernel_h, kernel_w;
    int stride_h = 1, stride_w = 1;
    int pad_h = 0, pad_w = 0;
  };
  void conv(const std::string& name, int out_channels, const Window& window, bool bias);
  // Channel concatenation of branches whose outputs (same height and width) have these channel
  // counts; the current shape becomes the concatenated tensor. Set the shape back to the block's
  // input (set_shape) before building each branch.
  void concat(const std::string& name, const std::vector<int>& branch_channels);
  void batch_norm(const std::string& name);
  void relu(const std::string& name);
  // Residual add of two tensors of the current shape (reads two inputs, writes one output).
  void residual_add(const std::string& name);
  void max_pool(const std::string& name, int kernel, int stride, int pad);
  // A windowed average pool (Inception's pool branches): the max pool's cost, an add for a compare.
  void avg_pool(const std::string& name, int kernel, int stride, int pad);
  void global_avg_pool(const std::string& name);
  // Fully connected layer on the flattened current tensor.
  void linear(const std::string& name, int out_features, bool bias);

  std::vector<Layer> take() { return std::move(layers_); }

 private:
  Layer& add(const std::string& name, LayerKind kind, double forward_flops, double in_elements,
             double out_elements, int64_t params);
  void window_pool(const std::string& name, int kernel, int stride, int pad);

  Precision precision_;
  Shape shape_;
  bool input_is_data_ = true;  // no weighted layer yet: the next one needs no input gradient
  std::vector<Layer> layers_;
};

// Transformer models: every activation is sequence_length x width per sample.
class SequenceBuilder {
 public:
  SequenceBuilder(Precision precision, int sequence_length, int hidden);

  // Sum of lookups in tables with `rows` entries of width `hidden` each (token, position, type).
  void embedding(const std::string& name, const std::vector<int64_t>& table_rows);
  // Linear layer applied to `rows` rows per sample (sequence_length by default, 1 for a pooler).
  // params_counted = false for a layer whose weight is tied to (and counted in) another layer.
  void linear(const std::string& name, int in_features, int out_features, bool bias, int rows = -1,
              bool params_counted = true);
  // Self-attention core for `heads` heads as an unfused implementation runs it, its kernels in
  // turn (so their times add): NAME.scores = Q K^T, NAME.scale_mask (the division by sqrt(d_head)
  // and the mask: two kernels, one layer), NAME.softmax, NAME.dropout on the h x s x s
  // probabilities, NAME.context = P V. The full s x s score matrix is computed even for causal
  // models.
  enum class AttentionMask {
    added,         // BERT: `scores + mask`; backward passes the gradient through (no kernel)
    causal_where,  // GPT-2: torch.where(causal, scores, -inf); backward is a where of its own
  };
  void attention(const std::string& name, int heads, AttentionMask mask);
  // Dropout on `width` x rows elements per sample (training mode): forward reads the input and
  // writes the output and a one-byte mask per element; backward reads the output gradient and the
  // mask and writes the input gradient. No FLOPs counted (a compare and a multiply per element
  // are far below the bytes' time).
  void dropout(const std::string& name, double elements_per_sample);
  void dropout(const std::string& name);  // on the s x hidden activation
  void layer_norm(const std::string& name, bool with_residual_add);
  void residual_add(const std::string& name);
  void activation(const std::string& name, int width, int rows = -1);  // GELU or tanh
  // A causal language model's loss as HuggingFace's GPT2LMHeadModel computes it over the
  // sequence_length x vocab logits: NAME.shift (`lm_logits[..., :-1, :].contiguous()`, a copy of
  // the (s - 1) x vocab shifted logits) and NAME.cross_entropy (CrossEntropyLoss: log_softmax and
  // nll_loss over them; under autocast in fp32, with the cast of the logits up and of their
  // gradient down). Memory-bound: the bytes are in layer_builder.cpp.
  void lm_loss(const std::string& name, int64_t vocab);
  // The layers added from here on belong to block `name` (a transformer layer: what activation
  // checkpointing wraps), until end_block().
  void begin_block(const std::string& name) { block_ = name; }
  void end_block() { block_.clear(); }

  std::vector<Layer> take() { return std::move(layers_); }

 private:
  Layer& push(Layer layer);  // appends it in the open block
  Layer& add(const std::string& name, LayerKind kind, double forward_flops, double backward_flops,
             double touched_elements, int64_t params);

  Precision precision_;
  int seq_;
  int hidden_;
  std::string block_;
  std::vector<Layer> layers_;
};

}  // namespace dasim::workload
