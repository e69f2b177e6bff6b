// A layer of a training workload, as the compute model and the schedules see it. Built-in
// generators (ResNet-50, VGG-16, BERT-large, GPT-2 XL) derive every figure from the architecture;
// user workload JSON files and executor profiles fill the same struct.
//
// Counting convention: FLOPs count a multiply-add as 2 FLOPs; figures are per sample (one image or
// one sequence) unless a measured time is given, which is for `measured_batch` samples.
#pragma once

#include "common/enum_names.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dasim::workload {

// concat: channel concatenation of branch outputs (Inception's filter concat): no parameters, no
// FLOPs, memory-bound; its backward is a split that moves the same bytes.
enum class LayerKind { conv, linear, norm, elementwise, pooling, attention, embedding, concat };
inline constexpr EnumNames<LayerKind, 8> kLayerKindNames{{{
    {LayerKind::conv, "conv"},
    {LayerKind::linear, "linear"},
    {LayerKind::norm, "norm"},
    {LayerKind::elementwise, "elementwise"},
    {LayerKind::pooling, "pooling"},
    {LayerKind::attention, "attention"},
    {LayerKind::embedding, "embedding"},
    {LayerKind::concat, "concat"},
}}};

// Convolution shape, per sample (batch is applied by the compute model). Used to look up
// measured per-shape times in a calibration file (see conv_shape_key()).
//
// `stride` and `pad` are the height direction's and, unless stride_w / pad_w are set, also the
// width direction's: the symmetric shapes of ResNet and VGG keep one value each, so the kernels
// that know a single stride and pad, positional initializers and calibration keys stay valid.
// Inception's 1x7 with pad (0, 3) or a (2, 1) stride sets the width values. Read the width values
// through conv_stride_w() / conv_pad_w(), never the optionals directly.
struct ConvShape {
  int in_channels = 0;
  int out_channels = 0;
  int in_h = 0, in_w = 0;
  int kernel_h = 0, kernel_w = 0;
  int stride = 1;  // stride_h
  int pad = 0;     // pad_h
  int groups = 1;
  // Explicit initializers: positional 9-value initializers then leave them unset without a
  // -Wmissing-field-initializers warning.
  std::optional<int> stride_w = std::nullopt;  // unset: same as stride
  std::optional<int> pad_w = std::nullopt;     // unset: same as pad
};

inline int conv_stride_w(const ConvShape& s) {
  return s.stride_w.value_or(s.stride);
}
inline int conv_pad_w(const ConvShape& s) {
  return s.pad_w.value_or(s.pad);
}
// One stride and one pad for both directions (by value, however the shape was written).
inline bool conv_is_symmetric(const ConvShape& s) {
  return conv_stride_w(s) == s.stride && conv_pad_w(s) == s.pad;
}
// Output height and width: (in + 2 pad - kernel) / stride + 1 per direction, rounded down.
int conv_out_h(const ConvShape& s);
int conv_out_w(const ConvShape& s);
// Multiply-adds per sample: every output element sums kernel_h x kernel_w x in_channels / groups.
double conv_macs(const ConvShape& s);
// The algorithm family a conv's efficiency curve is measured and looked up under: conv_1x1,
// conv_3x3_s1 or conv_other. The 1x1 and 3x3 stride-1 curves are measured on shapes with one
// stride for both directions, so an asymmetric stride such as (2, 1) is conv_other whatever its
// kernel. One definition for the fit (kernels/) and the compute model (sim/compute/).
std::string conv_kernel_family(const ConvShape& s);

// GEMM shape per sample: (rows_per_sample x k) * (k x n). For a linear layer on a sequence,
// rows_per_sample is the sequence length; for an MLP layer it is 1.
struct GemmShape {
  int64_t rows_per_sample = 1;
  int64_t n = 0;
  int64_t k = 0;
  // Spelled out, not defaulted: the CUDA suite's nvcc compiles this header as C++17.
  bool operator==(const GemmShape& other) const {
    return rows_per_sample == other.rows_per_sample && n == other.n && k == other.k;
  }
};

// A layer's figures in one of the sample shapes of a workload whose micro-batches differ in shape
// (Workload::shapes: a loader that pads each micro-batch only to its own length bin). Per sample,
// as the layer's own.
struct LayerShape {
  double share = 0;  // of the micro-batches: the workload's shapes[i].share, copied for the compute model
  double forward_flops = 0;
  double backward_flops = 0;
  double activation_bytes = 0;
  std::optional<double> backward_activation_bytes;
  std::optional<GemmShape> gemm;
};

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::elementwise;
  double forward_flops = 0;     // per sample
  double backward_flops = 0;    // per sample: input gradient + weight gradient
  int64_t params = 0;           // trainable parameters (weights + biases)
  double activation_bytes = 0;  // per sample: bytes read + written by forward (memory-bound term)
  // Per sample, bytes the backward pass reads + writes when they are not twice the forward's (a
  // dropout's backward reads the output gradient and its mask and writes one gradient).
  std::optional<double> backward_activation_bytes;
  std::optional<ConvShape> conv;
  std::optional<GemmShape> gemm;
  // Measured times (executor --profile or a user file), valid for measured_batch samples.
  std::optional<double> forward_time_s;
  std::optional<double> backward_time_s;
  int measured_batch = 0;
  // The repeated block the layer belongs to ("h.3": a transformer layer), empty for none: what
  // activation checkpointing wraps and recomputes (activation_checkpointing.hpp). A block's layers
  // are contiguous.
  std::string block;
  // Empty: the layer is the same in every micro-batch. Else its figures in each of the workload's
  // sample shapes, in their order; forward_flops, backward_flops and activation_bytes are then the
  // share-weighted means (what the totals report), and the compute model times each shape and
  // weights the times (compute_model.hpp): time is not linear in the shape.
  std::vector<LayerShape> shapes;
};

// The layer as it runs in one of its shapes: the shape's figures, no shapes of its own.
Layer in_shape(const Layer& layer, const LayerShape& shape);
// Sets a layer's forward_flops, backward_flops and activation_bytes to its shapes' share-weighted
// means (what the totals and reports read).
void set_shape_means(Layer& layer);

std::string to_string(LayerKind kind);

}  // namespace dasim::workload
