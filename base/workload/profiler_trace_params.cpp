// Parameter counts from recorded shapes or a side file (see profiler_trace_params.hpp).
#include "workload/profiler_trace_params.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

namespace dasim::workload::trace {
namespace {

// Positions of the weight and bias among an op's inputs (ATen's schemas), -1: none.
struct WeightInputs {
  std::string_view op;
  int weight;
  int bias;
};
constexpr std::array<WeightInputs, 15> kWeightInputs{{
    {"aten::conv1d", 1, 2},
    {"aten::conv2d", 1, 2},
    {"aten::conv3d", 1, 2},
    {"aten::conv_transpose1d", 1, 2},
    {"aten::conv_transpose2d", 1, 2},
    {"aten::conv_transpose3d", 1, 2},
    {"aten::convolution", 1, 2},
    {"aten::_convolution", 1, 2},
    {"aten::linear", 1, 2},
    {"aten::addmm", 2, 0},  // addmm(bias, input, weight.t())
    {"aten::batch_norm", 1, 2},
    {"aten::instance_norm", 1, 2},
    {"aten::layer_norm", 2, 3},  // layer_norm(input, normalized_shape, weight, bias, ...)
    {"aten::group_norm", 2, 3},  // group_norm(input, num_groups, weight, bias, ...)
    {"aten::embedding", 0, -1},
}};

const WeightInputs* weight_inputs(std::string_view op) {
  auto it =
      std::find_if(kWeightInputs.begin(), kWeightInputs.end(), [&](const auto& w) { return w.op == op; });
  return it == kWeightInputs.end() ? nullptr : &*it;
}

int64_t shape_elements(const nlohmann::json& shape, const std::string& file, const std::string& at) {
  if (!shape.is_array()) throw InputError(file, at, "expected a list of sizes");
  if (shape.empty()) return 0;  // an undefined tensor (no bias)
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t size = json_integer(shape[i], file, fmt::format("{}[{}]", at, i));
    if (size < 0 || size > (int64_t(1) << 40)) throw InputError(file, at, "expected sizes in 0..2^40");
    n *= size;
    if (n > (int64_t(1) << 40)) throw InputError(file, at, "expected a tensor below 2^40 elements");
  }
  return n;
}

int64_t elements(const nlohmann::json& dims, int position, const std::string& file, const std::string& path) {
  if (position < 0 || position >= int(dims.size())) return 0;
  return shape_elements(dims[size_t(position)], file, fmt::format("{}[{}]", path, position));
}

ParamGroup read_entry(const nlohmann::json& element, const std::string& file, const std::string& path) {
  ObjectReader r(element, file, path);
  ParamGroup entry;
  std::string name = r.string("name");
  auto dot = name.rfind('.');
  entry.layer = dot == std::string::npos ? name : name.substr(0, dot);
  if (r.has("shape") == r.has("numel")) r.fail("", "expected one of shape (a list of sizes) or numel");
  if (r.has("numel")) {
    entry.params = r.integer_in("numel", 0, int64_t(1) << 40);
  } else {
    entry.params = shape_elements(r.raw("shape"), file, r.path_of("shape"));
  }
  r.finish();
  return entry;
}

}  // namespace

bool is_weighted_op(std::string_view op_name) {
  return weight_inputs(op_name) != nullptr;
}

std::optional<int64_t> params_from_input_dims(const TraceEvent& op, const std::string& file) {
  const WeightInputs* w = weight_inputs(op.name);
  if (!w || op.input_dims.is_null()) return std::nullopt;
  const std::string path = fmt::format("traceEvents[{}].args.Input Dims", op.index);
  if (!op.input_dims.is_array()) throw InputError(file, path, "expected a list of input shapes");
  if (w->weight >= int(op.input_dims.size()))
    throw InputError(
        file, path,
        fmt::format("expected the shapes of {}'s inputs (its weight is input {})", op.name, w->weight));
  return elements(op.input_dims, w->weight, file, path) + elements(op.input_dims, w->bias, file, path);
}

std::vector<ParamGroup> load_param_file(const std::string& file) {
  nlohmann::json root = load_json_file(file);
  if (!root.is_array() || root.empty())
    throw InputError(file, "", "expected a non-empty list of {\"name\", \"shape\" | \"numel\"} objects");
  std::vector<ParamGroup> groups;
  for (size_t i = 0; i < root.size(); ++i) {
    ParamGroup entry = read_entry(root[i], file, fmt::format("[{}]", i));
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.layer == entry.layer; });
    if (it == groups.end())
      groups.push_back(entry);
    else
      it->params += entry.params;
  }
  return groups;
}

std::vector<int64_t> assign_param_groups(const std::vector<ParamGroup>& groups,
                                         const std::vector<std::string>& layer_names,
                                         const std::vector<bool>& takes_weights, const std::string& file) {
  std::vector<int64_t> params(layer_names.size(), 0);
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < layer_names.size(); ++i) by_name.emplace(layer_names[i], i);
  bool all_named =
      std::all_of(groups.begin(), groups.end(), [&](const auto& g) { return by_name.count(g.layer); });
  if (all_named) {
    for (const auto& g : groups) params[by_name[g.layer]] = g.params;
    return params;
  }
  std::vector<size_t> weighted;
  for (size_t i = 0; i < layer_names.size(); ++i)
    if (takes_weights[i]) weighted.push_back(i);
  if (weighted.size() != groups.size()) {
    std::vector<std::string> names;
    for (size_t i : weighted) names.push_back(layer_names[i]);
    throw InputError(
        file, "",
        fmt::format("{} layers with parameters ({}), but the trace has {} layers that take weights ({}); "
                    "name the entries after the imported layers (e.g. \"{}.weight\") instead",
                    groups.size(), groups.empty() ? "" : groups.front().layer + ", ...", weighted.size(),
                    fmt::join(names, ", "), names.empty() ? "Conv2d_0" : names.front()));
  }
  for (size_t k = 0; k < weighted.size(); ++k) params[weighted[k]] = groups[k].params;
  return params;
}

}  // namespace dasim::workload::trace
