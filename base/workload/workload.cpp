// Totals over a workload's layers (see workload.hpp).
#include "workload/workload.hpp"

namespace dasim::workload {

int64_t Workload::total_params() const {
  int64_t total = 0;
  for (const auto& layer : layers) total += layer.params;
  return total;
}

std::vector<int64_t> Workload::layer_params() const {
  std::vector<int64_t> params;
  for (const auto& layer : layers) params.push_back(layer.params);
  return params;
}

int Workload::gradient_element_bytes() const {
  return gradient_bytes_per_element(grad_precision.value_or(precision));
}

double Workload::gradient_bytes() const {
  return static_cast<double>(total_params()) * gradient_element_bytes();
}

double Workload::forward_flops() const {
  double total = 0;
  for (const auto& layer : layers) total += layer.forward_flops;
  return total;
}

double Workload::backward_flops() const {
  double total = 0;
  for (const auto& layer : layers) total += layer.backward_flops;
  return total;
}

double Workload::conv_linear_macs() const {
  double total = 0;
  for (const auto& layer : layers)
    if (layer.kind == LayerKind::conv || layer.kind == LayerKind::linear) total += layer.forward_flops / 2;
  return total;
}

double Workload::activation_bytes() const {
  double total = 0;
  for (const auto& layer : layers) total += layer.activation_bytes;
  return total;
}

}  // namespace dasim::workload
