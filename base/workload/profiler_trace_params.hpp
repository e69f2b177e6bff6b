// Parameter counts of imported layers: from the weight shapes an op recorded (record_shapes=True
// puts them in "Input Dims"), or from a side file when the trace has no shapes:
//   [{"name": "conv1.weight", "shape": [64, 3, 7, 7]}, {"name": "fc.bias", "numel": 1000}, ...]
// (what `[{"name": n, "shape": list(p.shape)} for n, p in model.named_parameters()]` dumps).
// An entry's layer is its name up to the last '.'; see docs/workloads.md for how those are matched.
#pragma once

#include "workload/profiler_trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dasim::workload::trace {

// Ops whose inputs include trainable weights: convolutions, linear / addmm, norms, embedding.
bool is_weighted_op(std::string_view op_name);

// Weights + bias of a weighted op from its "Input Dims"; nullopt when the trace has no shapes.
// Throws InputError naming traceEvents[i].args.Input Dims when they are not lists of sizes.
std::optional<int64_t> params_from_input_dims(const TraceEvent& op, const std::string& file);

struct ParamGroup {
  std::string layer;  // the entries' name up to the last '.' ("conv1" for "conv1.weight")
  int64_t params = 0;
};

// Reads the side file; groups keep the order of their first entry. Throws InputError
// `FILE: [i].shape: what` for bad entries.
std::vector<ParamGroup> load_param_file(const std::string& file);

// Parameters per layer from the groups: by name when every group names a layer, else in order onto
// the layers that take weights. Throws InputError naming `file` when the counts do not match.
std::vector<int64_t> assign_param_groups(const std::vector<ParamGroup>& groups,
                                         const std::vector<std::string>& layer_names,
                                         const std::vector<bool>& takes_weights, const std::string& file);

}  // namespace dasim::workload::trace
