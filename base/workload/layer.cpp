// Names of layer kinds, as they appear in workload JSON files and in `dasim workload show`, and the
// output size and multiply-adds of a convolution shape.
#include "workload/layer.hpp"

namespace dasim::workload {

std::string to_string(LayerKind kind) {
  return std::string(kLayerKindNames.name(kind));
}

Layer in_shape(const Layer& layer, const LayerShape& shape) {
  // Field by field rather than a copy of `layer`: a copy would copy its shapes too, once per shape
  // timed, which makes a layer of many shapes quadratic.
  Layer one;
  one.name = layer.name;
  one.kind = layer.kind;
  one.params = layer.params;
  one.conv = layer.conv;
  one.forward_time_s = layer.forward_time_s;
  one.backward_time_s = layer.backward_time_s;
  one.measured_batch = layer.measured_batch;
  one.block = layer.block;
  one.forward_flops = shape.forward_flops;
  one.backward_flops = shape.backward_flops;
  one.activation_bytes = shape.activation_bytes;
  one.backward_activation_bytes = shape.backward_activation_bytes;
  one.gemm = shape.gemm;
  return one;
}

int conv_out_h(const ConvShape& s) {
  return (s.in_h + 2 * s.pad - s.kernel_h) / s.stride + 1;
}

int conv_out_w(const ConvShape& s) {
  return (s.in_w + 2 * conv_pad_w(s) - s.kernel_w) / conv_stride_w(s) + 1;
}

double conv_macs(const ConvShape& s) {
  double outputs = double(s.out_channels) * conv_out_h(s) * conv_out_w(s);
  return outputs * s.kernel_h * s.kernel_w * (s.in_channels / s.groups);
}

std::string conv_kernel_family(const ConvShape& c) {
  if (c.groups != 1 || conv_stride_w(c) != c.stride) return "conv_other";
  if (c.kernel_h == 1 && c.kernel_w == 1) return "conv_1x1";
  if (c.kernel_h == 3 && c.kernel_w == 3 && c.stride == 1) return "conv_3x3_s1";
  return "conv_other";
}

void set_shape_means(Layer& layer) {
  layer.forward_flops = layer.backward_flops = layer.activation_bytes = 0;
  for (const auto& shape : layer.shapes) {
    layer.forward_flops += shape.share * shape.forward_flops;
    layer.backward_flops += shape.share * shape.backward_flops;
    layer.activation_bytes += shape.share * shape.activation_bytes;
  }
}

}  // namespace dasim::workload
