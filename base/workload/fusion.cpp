// Merging of norm + activation layers (see fusion.hpp).
#include "workload/fusion.hpp"

namespace dasim::workload {

namespace {

bool fuses_into(const Layer& norm, const Layer& next) {
  // One block on both sides: a fused kernel across a checkpointed block's edge would be half
  // recomputed. Layers whose figures vary by sample shape stay apart: their sums would be per shape.
  return norm.kind == LayerKind::norm && next.kind == LayerKind::elementwise && next.params == 0 &&
         next.activation_bytes == norm.activation_bytes && !norm.forward_time_s && !next.forward_time_s &&
         norm.block == next.block && norm.shapes.empty() && next.shapes.empty();
}

}  // namespace

void apply_fusion(Workload& workload, Fusion fusion) {
  if (fusion == Fusion::none) return;
  std::vector<Layer> fused;
  fused.reserve(workload.layers.size());
  for (auto& layer : workload.layers) {
    if (!fused.empty() && fuses_into(fused.back(), layer)) {
      Layer& norm = fused.back();
      norm.name += "+" + layer.name;
      norm.forward_flops += layer.forward_flops;
      norm.backward_flops += layer.backward_flops;
      continue;  // the activation's bytes are the norm's: read once, written once
    }
    fused.push_back(std::move(layer));
  }
  workload.layers = std::move(fused);
}

std::string to_string(Fusion fusion) {
  return std::string(kFusionNames.name(fusion));
}

Fusion parse_fusion(const std::string& text, const std::string& file, const std::string& json_path) {
  return parse_named(kFusionNames, text, "--fusion", file, json_path);
}

}  // namespace dasim::workload
