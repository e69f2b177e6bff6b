// Activation checkpointing's recomputed forward (see recompute.hpp).
#include "workload/recompute.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace dasim::workload {

std::vector<double> recompute_before_backward_s(const Workload& workload,
                                                const std::vector<double>& forward_layers_s) {
  std::vector<double> recompute(workload.layers.size(), 0.0);
  if (workload.activation_checkpointing == ActivationCheckpointing::none) return recompute;
  double open_block_s = 0;
  for (size_t i = 0; i < workload.layers.size(); ++i) {
    const std::string& block = workload.layers[i].block;
    if (block.empty()) continue;
    open_block_s += forward_layers_s.at(i);
    const bool last_of_block = i + 1 == workload.layers.size() || workload.layers[i + 1].block != block;
    if (last_of_block) {
      recompute[i] = open_block_s;
      open_block_s = 0;
    }
  }
  return recompute;
}

int first_split_block_layer(const std::vector<Layer>& layers) {
  std::set<std::string> closed;
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string& block = layers[i].block;
    if (i > 0 && !layers[i - 1].block.empty() && layers[i - 1].block != block)
      closed.insert(layers[i - 1].block);
    if (!block.empty() && closed.count(block)) return static_cast<int>(i);
  }
  return -1;
}

bool has_blocks(const Workload& workload) {
  return std::any_of(workload.layers.begin(), workload.layers.end(),
                     [](const Layer& l) { return !l.block.empty(); });
}

int block_count(const Workload& workload) {
  int blocks = 0;
  for (size_t i = 0; i < workload.layers.size(); ++i) {
    const std::string& block = workload.layers[i].block;
    if (!block.empty() && (i == 0 || workload.layers[i - 1].block != block)) ++blocks;
  }
  return blocks;
}

}  // namespace dasim::workload
