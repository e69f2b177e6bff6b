// Layout transposes of NCHW convolutions on tensor cores (see memory_format.hpp).
#include "workload/memory_format.hpp"

namespace dasim::workload {

bool convolutions_use_tensor_cores(Precision precision) {
  return precision != Precision::fp32;
}

void apply_memory_format(Workload& workload, MemoryFormat format) {
  if (format == MemoryFormat::channels_last || !convolutions_use_tensor_cores(workload.precision)) return;
  std::vector<Layer> layers;
  layers.reserve(workload.layers.size() * 2);
  for (auto& layer : workload.layers) {
    const bool transposes = layer.kind == LayerKind::conv && !layer.forward_time_s && !layer.backward_time_s;
    // A convolution's activation_bytes are its input and output tensors, read and written once
    // (layer_builder.hpp), so each transpose pass over both streams twice that.
    const double tensors_bytes = layer.activation_bytes;
    const bool data_gradient = layer.backward_flops > layer.forward_flops;
    layers.push_back(std::move(layer));
    if (!transposes) continue;
    Layer layout;
    layout.name = layers.back().name + ".layout";
    layout.kind = LayerKind::elementwise;
    layout.activation_bytes = 2 * tensors_bytes;
    layout.backward_activation_bytes = (data_gradient ? 4 : 2) * tensors_bytes;
    layers.push_back(std::move(layout));
  }
  workload.layers = std::move(layers);
}

std::string to_string(MemoryFormat format) {
  return std::string(kMemoryFormatNames.name(format));
}

MemoryFormat parse_memory_format(const std::string& text, const std::string& file,
                                 const std::string& json_path) {
  return parse_named(kMemoryFormatNames, text, "--memory-format", file, json_path);
}

}  // namespace dasim::workload
