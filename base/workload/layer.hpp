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

namespace dasim::workload {

enum class LayerKind { conv, linear, norm, elementwise, pooling, attention, embedding };
inline constexpr EnumNames<LayerKind, 7> kLayerKindNames{{{
    {LayerKind::conv, "conv"},
    {LayerKind::linear, "linear"},
    {LayerKind::norm, "norm"},
    {LayerKind::elementwise, "elementwise"},
    {LayerKind::pooling, "pooling"},
    {LayerKind::attention, "attention"},
    {LayerKind::embedding, "embedding"},
}}};

// Convolution shape, per sample (batch is applied by the compute model). Used to look up
// measured per-shape times in a calibration file (see conv_shape_key()).
struct ConvShape {
  int in_channels = 0;
  int out_channels = 0;
  int in_h = 0, in_w = 0;
  int kernel_h = 0, kernel_w = 0;
  int stride = 1;
  int pad = 0;
  int groups = 1;
};

// GEMM shape per sample: (rows_per_sample x k) * (k x n). For a linear layer on a sequence,
// rows_per_sample is the sequence length; for an MLP layer it is 1.
struct GemmShape {
  int64_t rows_per_sample = 1;
  int64_t n = 0;
  int64_t k = 0;
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
};

std::string to_string(LayerKind kind);

}  // namespace dasim::workload
