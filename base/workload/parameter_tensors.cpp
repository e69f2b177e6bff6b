// Parameter tensors per layer (see parameter_tensors.hpp).
#include "workload/parameter_tensors.hpp"

#include <algorithm>

namespace dasim::workload {
namespace {

// A weight of `weight` elements and a bias of whatever parameters remain; a layer whose
// parameters do not cover the weight (a hand-written file) is one tensor.
std::vector<ParameterTensor> weight_and_bias(int64_t params, int64_t weight) {
  if (weight <= 0 || weight > params) return {{params, true}};
  std::vector<ParameterTensor> tensors{{weight, true}};
  if (params > weight) tensors.push_back({params - weight, false});
  return tensors;
}

}  // namespace

std::vector<ParameterTensor> parameter_tensors(const Layer& layer) {
  if (layer.params <= 0) return {};
  switch (layer.kind) {
    case LayerKind::linear: {
      // A layer whose figures vary by micro-batch shape keeps its GEMMs in its shapes; their weight
      // (k x n) is the same in each (the file reader checks it), only the rows change.
      const auto& gemm = layer.gemm || layer.shapes.empty() ? layer.gemm : layer.shapes.front().gemm;
      if (gemm) return weight_and_bias(layer.params, gemm->k * gemm->n);
      break;
    }
    case LayerKind::conv:
      if (layer.conv) {
        const auto& s = *layer.conv;
        const int64_t weight =
            int64_t(s.out_channels) * (s.in_channels / std::max(1, s.groups)) * s.kernel_h * s.kernel_w;
        return weight_and_bias(layer.params, weight);
      }
      break;
    case LayerKind::norm:
      if (layer.params % 2 == 0) return {{layer.params / 2, false}, {layer.params / 2, false}};
      return {{layer.params, false}};
    default:
      break;
  }
  return {{layer.params, true}};
}

std::vector<ParameterTensor> parameter_tensors(const Workload& workload) {
  std::vector<ParameterTensor> tensors;
  for (const auto& layer : workload.layers)
    for (const auto& t : parameter_tensors(layer)) tensors.push_back(t);
  return tensors;
}

}  // namespace dasim::workload
