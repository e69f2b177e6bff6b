// FLOP, parameter and byte counts of layers from their shapes (conventions in layer_builder.hpp).
#include "workload/layer_builder.hpp"

namespace dasim::workload {
namespace {

constexpr double kReluFlopsPerElement = 1;
constexpr double kAddFlopsPerElement = 1;
constexpr double kNormFlopsPerElement = 8;
constexpr double kActivationFlopsPerElement = 8;
constexpr double kSoftmaxFlopsPerElement = 5;

}  // namespace

CnnBuilder::CnnBuilder(Precision precision, int channels, int height, int width)
    : precision_(precision), shape_{channels, height, width} {}

Layer& CnnBuilder::add(const std::string& name, LayerKind kind, double forward_flops, double in_elements,
                       double out_elements, int64_t params) {
  Layer layer;
  layer.name = name;
  layer.kind = kind;
  layer.forward_flops = forward_flops;
  bool weighted = params > 0;
  bool skip_input_gradient = weighted && input_is_data_;
  layer.backward_flops = forward_flops * (weighted && !skip_input_gradient ? 2.0 : 1.0);
  if (weighted) input_is_data_ = false;
  layer.params = params;
  layer.activation_bytes = (in_elements + out_elements) * activation_bytes_per_element(precision_);
  layers_.push_back(std::move(layer));
  return layers_.back();
}

void CnnBuilder::conv(const std::string& name, int out_channels, int kernel, int stride, int pad, bool bias) {
  conv(name, out_channels, Window{kernel, kernel, stride, stride, pad, pad}, bias);
}

void CnnBuilder::conv(const std::string& name, int out_channels, const Window& window, bool bias) {
  Shape in = shape_;
  ConvShape c{in.channels,     out_channels,    in.height,    in.width, window.kernel_h,
              window.kernel_w, window.stride_h, window.pad_h, 1};
  // Width values only where they differ, so symmetric shapes keep their calibration keys.
  if (window.stride_w != window.stride_h) c.stride_w = window.stride_w;
  if (window.pad_w != window.pad_h) c.pad_w = window.pad_w;
  Shape out{out_channels, conv_out_h(c), conv_out_w(c)};
  int64_t params =
      int64_t(out_channels) * in.channels * window.kernel_h * window.kernel_w + (bias ? out_channels : 0);
  Layer& layer = add(name, LayerKind::conv, 2 * conv_macs(c), in.elements(), out.elements(), params);
  layer.conv = c;
  shape_ = out;
}

void CnnBuilder::concat(const std::string& name, const std::vector<int>& branch_channels) {
  int channels = 0;
  for (int c : branch_channels) channels += c;
  Shape out{channels, shape_.height, shape_.width};
  // Reads every branch output once and writes the concatenated tensor once: as many elements in
  // as out. Its backward (a split) moves the same bytes, not twice them.
  Layer& layer = add(name, LayerKind::concat, 0, out.elements(), out.elements(), 0);
  layer.backward_activation_bytes = layer.activation_bytes;
  shape_ = out;
}

void CnnBuilder::batch_norm(const std::string& name) {
  add(name, LayerKind::norm, kNormFlopsPerElement * shape_.elements(), shape_.elements(), shape_.elements(),
      2 * int64_t(shape_.channels));
}

void CnnBuilder::relu(const std::string& name) {
  add(name, LayerKind::elementwise, kReluFlopsPerElement * shape_.elements(), shape_.elements(),
      shape_.elements(), 0);
}

void CnnBuilder::residual_add(const std::string& name) {
  add(name, LayerKind::elementwise, kAddFlopsPerElement * shape_.elements(), 2 * shape_.elements(),
      shape_.elements(), 0);
}

void CnnBuilder::window_pool(const std::string& name, int kernel, int stride, int pad) {
  Shape in = shape_;
  Shape out{in.channels, (in.height + 2 * pad - kernel) / stride + 1,
            (in.width + 2 * pad - kernel) / stride + 1};
  // One compare (max) or add (average) per window element of each output.
  add(name, LayerKind::pooling, out.elements() * kernel * kernel, in.elements(), out.elements(), 0);
  shape_ = out;
}

void CnnBuilder::max_pool(const std::string& name, int kernel, int stride, int pad) {
  window_pool(name, kernel, stride, pad);
}

void CnnBuilder::avg_pool(const std::string& name, int kernel, int stride, int pad) {
  window_pool(name, kernel, stride, pad);
}

void CnnBuilder::global_avg_pool(const std::string& name) {
  Shape in = shape_;
  Shape out{in.channels, 1, 1};
  add(name, LayerKind::pooling, in.elements(), in.elements(), out.elements(), 0);
  shape_ = out;
}

void CnnBuilder::linear(const std::string& name, int out_features, bool bias) {
  double in_features = shape_.elements();
  int64_t params = int64_t(in_features) * out_features + (bias ? out_features : 0);
  Layer& layer =
      add(name, LayerKind::linear, 2 * in_features * out_features, in_features, out_features, params);
  layer.gemm = GemmShape{1, out_features, int64_t(in_features)};
  shape_ = Shape{out_features, 1, 1};
}

SequenceBuilder::SequenceBuilder(Precision precision, int sequence_length, int hidden)
    : precision_(precision), seq_(sequence_length), hidden_(hidden) {}

Layer& SequenceBuilder::push(Layer layer) {
  layer.block = block_;
  layers_.push_back(std::move(layer));
  return layers_.back();
}

Layer& SequenceBuilder::add(const std::string& name, LayerKind kind, double forward_flops,
                            double backward_flops, double touched_elements, int64_t params) {
  Layer layer;
  layer.name = name;
  layer.kind = kind;
  layer.forward_flops = forward_flops;
  layer.backward_flops = backward_flops;
  layer.params = params;
  layer.activation_bytes = touched_elements * activation_bytes_per_element(precision_);
  return push(std::move(layer));
}

void SequenceBuilder::embedding(const std::string& name, const std::vector<int64_t>& table_rows) {
  double tokens = double(seq_) * hidden_;
  int64_t params = 0;
  for (int64_t rows : table_rows) params += rows * hidden_;
  double tables = double(table_rows.size());
  // Forward: gather one row per table and sum them. Backward: no input gradient (token ids); each
  // table's weight gradient is a scatter-add of the output gradient (s x hidden adds per table).
  add(name, LayerKind::embedding, (tables - 1) * tokens, tables * tokens, (tables + 1) * tokens, params);
}

void SequenceBuilder::linear(const std::string& name, int in_features, int out_features, bool bias, int rows,
                             bool params_counted) {
  int64_t r = rows < 0 ? seq_ : rows;
  double forward = 2.0 * double(r) * in_features * out_features;
  int64_t params = params_counted ? int64_t(in_features) * out_features + (bias ? out_features : 0) : 0;
  Layer& layer =
      add(name, LayerKind::linear, forward, 2 * forward, double(r) * (in_features + out_features), params);
  layer.gemm = GemmShape{r, out_features, in_features};
}

void SequenceBuilder::attention(const std::string& name, int heads, AttentionMask mask) {
  double s = seq_, d = hidden_, scores = heads * s * s;
  double product = 2 * s * s * d;  // Q K^T or P V: s x s x d multiply-adds over all heads
  // Each product's backward computes the gradients of both its operands (2 x forward).
  // Q K^T reads Q and K, writes the scores; P V reads the probabilities and V, writes the context.
  add(name + ".scores", LayerKind::attention, product, 2 * product, 2 * s * d + scores, 0);
  // The reference implementations scale the scores by 1/sqrt(d_head) and mask them in two kernels
  // of their own, each reading and writing the scores (DeepLearningExamples' BERT, modeling.py:
  // `attention_scores / math.sqrt(...)`, then `+ attention_mask`; HuggingFace GPT-2: the division,
  // then torch.where with the causal mask). Backward runs the division's kernel again, and the
  // where's (the gradient where the mask kept the score); an added mask passes the gradient through.
  const double backward_passes = mask == AttentionMask::causal_where ? 2 : 1;
  Layer& scale_mask =
      add(name + ".scale_mask", LayerKind::elementwise, 2 * scores, backward_passes * scores, 4 * scores, 0);
  scale_mask.backward_activation_bytes =
      backward_passes * 2 * scores * activation_bytes_per_element(precision_);
  add(name + ".softmax", LayerKind::elementwise, kSoftmaxFlopsPerElement * scores,
      kSoftmaxFlopsPerElement * scores, 2 * scores, 0);
  dropout(name + ".dropout", scores);
  add(name + ".context", LayerKind::attention, product, 2 * product, scores + 2 * s * d, 0);
}

void SequenceBuilder::dropout(const std::string& name, double elements) {
  const double bytes = activation_bytes_per_element(precision_);
  Layer layer;
  layer.name = name;
  layer.kind = LayerKind::elementwise;
  layer.activation_bytes = elements * (2 * bytes + 1);
  layer.backward_activation_bytes = elements * (2 * bytes + 1);
  push(std::move(layer));
}

void SequenceBuilder::dropout(const std::string& name) {
  dropout(name, double(seq_) * hidden_);
}

void SequenceBuilder::layer_norm(const std::string& name, bool with_residual_add) {
  double elements = double(seq_) * hidden_;
  double per_element = kNormFlopsPerElement + (with_residual_add ? kAddFlopsPerElement : 0);
  double touched = (with_residual_add ? 3 : 2) * elements;
  add(name, LayerKind::norm, per_element * elements, 2 * per_element * elements, touched,
      2 * int64_t(hidden_));
}

void SequenceBuilder::residual_add(const std::string& name) {
  double elements = double(seq_) * hidden_;
  add(name, LayerKind::elementwise, kAddFlopsPerElement * elements, kAddFlopsPerElement * elements,
      3 * elements, 0);
}

void SequenceBuilder::activation(const std::string& name, int width, int rows) {
  double elements = double(rows < 0 ? seq_ : rows) * width;
  add(name, LayerKind::elementwise, kActivationFlopsPerElement * elements,
      kActivationFlopsPerElement * elements, 2 * elements, 0);
}

void SequenceBuilder::lm_loss(const std::string& name, int64_t vocab) {
  const double a = activation_bytes_per_element(precision_);
  const double full = double(seq_) * double(vocab);
  const double shifted = double(seq_ - 1) * double(vocab);
  // The shift reads the slice and writes a contiguous copy; its backward (slice_backward)
  // zero-fills the gradient of all s x vocab logits and copies the shifted gradient into it.
  Layer shift;
  shift.name = name + ".shift";
  shift.kind = LayerKind::elementwise;
  shift.activation_bytes = 2 * shifted * a;
  shift.backward_activation_bytes = full * a + 2 * shifted * a;
  push(std::move(shift));
  // CrossEntropyLoss = log_softmax + nll_loss. Autocast runs both in fp32 (PyTorch's autocast op
  // list: log_softmax, nll_loss), so the half logits are cast up first and the gradient cast
  // back. Forward: log_softmax reads the logits and writes the log-probabilities (nll_loss
  // gathers one per row). Backward: nll_loss writes its zero-filled gradient with one -1/N per
  // row, log_softmax's backward reads it and the log-probabilities and writes the logits'
  // gradient: 4 passes.
  const bool autocast = is_mixed_precision(precision_);
  const double l = autocast ? 4 : a;
  const double cast = autocast ? a + l : 0;
  Layer& loss = add(name + ".cross_entropy", LayerKind::elementwise, kSoftmaxFlopsPerElement * shifted,
                    kSoftmaxFlopsPerElement * shifted, 0, 0);
  loss.activation_bytes = shifted * (cast + 2 * l);
  loss.backward_activation_bytes = shifted * (4 * l + cast);
}

}  // namespace dasim::workload
