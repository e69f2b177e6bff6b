// The model fragments of Streaming DiLoCo (arXiv 2501.18512): the parameters cut, in layer order,
// into P contiguous groups of whole layers of about equal size, each synchronised on its own turn.
// With the layers' parameters laid out one after the other in one flat buffer (as the executor's
// models do), fragment f is the slice [param_offset, param_offset + params).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dasim::workload {

struct Fragment {
  size_t first_layer = 0, last_layer = 0;  // forward order, inclusive
  int64_t param_offset = 0;
  int64_t params = 0;
};

// `fragments` groups of the layers with `layer_params[i]` parameters: a fragment closes at the
// first layer where the parameters so far reach its share of the total (f + 1) / P, and at least
// one layer with parameters is left for each fragment still to come. Throws std::invalid_argument
// when fewer layers have parameters than `fragments` (the callers validate first).
std::vector<Fragment> plan_fragments(const std::vector<int64_t>& layer_params, int fragments);

// How many layers have parameters: the largest fragment count a model can be cut into.
int layers_with_parameters(const std::vector<int64_t>& layer_params);

}  // namespace dasim::workload
