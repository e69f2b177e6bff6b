// Reading and writing workload JSON files, and resolving a workload name or path
// (see workload_file.hpp).
#include "workload/workload_file.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"
#include "workload/builtin_models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace dasim::workload {
namespace {

std::optional<double> optional_non_negative(ObjectReader& r, const std::string& key) {
  std::optional<double> v = r.optional_number(key);
  if (v && *v < 0) r.fail(key, fmt::format("expected a number >= 0, got {}", *v));
  return v;
}

int positive_int(ObjectReader& r, const std::string& key) {
  int64_t v = r.positive_integer(key);
  if (v > 1'000'000'000) r.fail(key, fmt::format("expected a size below 1e9, got {}", v));
  return int(v);
}

ConvShape read_conv(ObjectReader r) {
  ConvShape s;
  s.in_channels = positive_int(r, "in_channels");
  s.out_channels = positive_int(r, "out_channels");
  s.in_h = positive_int(r, "in_h");
  s.in_w = positive_int(r, "in_w");
  s.kernel_h = positive_int(r, "kernel_h");
  s.kernel_w = positive_int(r, "kernel_w");
  s.stride = r.has("stride") ? positive_int(r, "stride") : 1;
  if (r.has("pad")) {
    int64_t pad = r.integer("pad");
    if (pad < 0) r.fail("pad", fmt::format("expected a padding >= 0, got {}", pad));
    s.pad = int(pad);
  }
  s.groups = r.has("groups") ? positive_int(r, "groups") : 1;
  r.finish();
  return s;
}

GemmShape read_gemm(ObjectReader r) {
  GemmShape s;
  s.rows_per_sample = r.positive_integer("rows_per_sample");
  s.n = r.positive_integer("n");
  s.k = r.positive_integer("k");
  r.finish();
  return s;
}

Layer read_layer(ObjectReader r) {
  Layer layer;
  layer.name = r.string("name");
  layer.kind = r.enumeration("kind", kLayerKindNames);
  if (r.has("params")) {
    int64_t params = r.integer("params");
    if (params < 0) r.fail("params", fmt::format("expected a parameter count >= 0, got {}", params));
    layer.params = params;
  }
  auto forward_flops = optional_non_negative(r, "forward_flops");
  auto backward_flops = optional_non_negative(r, "backward_flops");
  auto forward_time = r.optional_time_s("forward_time_s");
  auto backward_time = r.optional_time_s("backward_time_s");
  layer.activation_bytes = optional_non_negative(r, "activation_bytes").value_or(0);
  layer.backward_activation_bytes = optional_non_negative(r, "backward_activation_bytes");
  if (r.has("conv")) layer.conv = read_conv(r.object("conv"));
  if (r.has("gemm")) layer.gemm = read_gemm(r.object("gemm"));
  r.finish();

  if (forward_flops.has_value() != backward_flops.has_value())
    r.fail(forward_flops ? "backward_flops" : "forward_flops",
           "forward_flops and backward_flops must be given together");
  if (forward_time.has_value() != backward_time.has_value())
    r.fail(forward_time ? "backward_time_s" : "forward_time_s",
           "forward_time_s and backward_time_s must be given together");
  if (!forward_flops && !forward_time)
    r.fail("", "a layer needs forward_flops + backward_flops or forward_time_s + backward_time_s");
  layer.forward_flops = forward_flops.value_or(0);
  layer.backward_flops = backward_flops.value_or(0);
  layer.forward_time_s = forward_time;
  layer.backward_time_s = backward_time;
  return layer;
}

}  // namespace

Workload parse_workload(const nlohmann::json& value, const std::string& file) {
  ObjectReader r(value, file, "");
  Workload w;
  w.name = r.string("name");
  w.precision = r.enumeration("precision", kPrecisionNames);
  w.sample_name = r.optional_string("sample_name").value_or("sample");
  if (auto optimizer = r.optional_string("optimizer"))
    w.optimizer = parse_optimizer(*optimizer, file, "optimizer");
  if (r.has("sequence_length")) w.sequence_length = positive_int(r, "sequence_length");
  auto measured_batch = r.optional_positive_integer("measured_batch");
  if (auto update = r.optional_time_s("update_time_s")) {
    // time_s has refused negative and non-finite values already.
    if (*update > 3600) r.fail("update_time_s", "expected seconds per step in [0, 3600]");
    w.update_time_s = *update;
  }
  r.array("layers", [&](const nlohmann::json& element, const std::string& path) {
    w.layers.push_back(read_layer(ObjectReader(element, file, path)));
  });
  // `dasim workload show --format json` adds what it derives (totals, buckets, a predicted step)
  // beside the workload: ignored here, so that output loads as the workload it shows.
  for (const char* derived : {"report", "step"})
    if (r.has(derived)) (void)r.raw(derived);
  r.finish();
  if (w.layers.empty()) r.fail("layers", "expected at least one layer");

  bool any_times = std::any_of(w.layers.begin(), w.layers.end(),
                               [](const Layer& l) { return l.forward_time_s.has_value(); });
  if (any_times && !measured_batch)
    r.fail("measured_batch", "required key is missing (layers have measured times; for how many samples?)");
  if (measured_batch) {
    if (*measured_batch > 1'000'000'000) r.fail("measured_batch", "expected a batch below 1e9");
    w.measured_batch = int(*measured_batch);
    for (auto& layer : w.layers)
      if (layer.forward_time_s) layer.measured_batch = w.measured_batch;
  }
  w.origin = file;
  return w;
}

namespace {

Workload build_workload(const std::string& spec_or_file, const WorkloadOptions& options) {
  const auto& names = builtin_workload_names();
  bool builtin = std::find(names.begin(), names.end(), spec_or_file) != names.end();
  std::error_code ignored;  // a path the OS cannot look up (name too long) is no such file either
  if (!builtin && !std::filesystem::exists(spec_or_file, ignored))
    throw InputError(spec_or_file, "",
                     fmt::format("not a built-in workload ({}) and no such file", fmt::join(names, ", ")));

  Precision precision = options.precision.value_or(Precision::fp32);
  if (builtin) {
    bool is_transformer = spec_or_file == "bert-large" || spec_or_file == "gpt2-xl";
    if (options.sequence_length && !is_transformer)
      throw InputError("--seq-len", "", spec_or_file + " is an image model: it has no sequence length");
    if (spec_or_file == "resnet50") return resnet50(precision);
    if (spec_or_file == "vgg16") return vgg16(precision);
    if (spec_or_file == "bert-large") return bert_large(precision, options.sequence_length.value_or(128));
    return gpt2_xl(precision, options.sequence_length.value_or(1024));
  }
  if (options.sequence_length)
    throw InputError("--seq-len", "",
                     "a workload file fixes its own FLOPs: --seq-len applies to built-ins only");
  Workload w = parse_workload(load_json_file(spec_or_file), spec_or_file);
  if (options.precision) w.precision = *options.precision;
  return w;
}

}  // namespace

Workload load_workload(const std::string& spec_or_file, const WorkloadOptions& options) {
  if (options.grad_precision && !is_storage_precision(*options.grad_precision))
    throw InputError("grad_precision", "",
                     fmt::format("expected fp32, fp16 or bf16 (an element type), got \"{}\"",
                                 to_string(*options.grad_precision)));
  Workload w = build_workload(spec_or_file, options);
  if (options.grad_precision) w.grad_precision = options.grad_precision;
  if (options.optimizer) w.optimizer = *options.optimizer;
  apply_fusion(w, options.fusion);
  return w;
}

nlohmann::json to_json(const Workload& w) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : w.layers) {
    nlohmann::json j{{"name", l.name},
                     {"kind", to_string(l.kind)},
                     {"params", l.params},
                     {"forward_flops", l.forward_flops},
                     {"backward_flops", l.backward_flops},
                     {"activation_bytes", l.activation_bytes}};
    if (l.forward_time_s) j["forward_time_s"] = *l.forward_time_s;
    if (l.backward_time_s) j["backward_time_s"] = *l.backward_time_s;
    if (l.backward_activation_bytes) j["backward_activation_bytes"] = *l.backward_activation_bytes;
    if (l.conv)
      j["conv"] = {{"in_channels", l.conv->in_channels},
                   {"out_channels", l.conv->out_channels},
                   {"in_h", l.conv->in_h},
                   {"in_w", l.conv->in_w},
                   {"kernel_h", l.conv->kernel_h},
                   {"kernel_w", l.conv->kernel_w},
                   {"stride", l.conv->stride},
                   {"pad", l.conv->pad},
                   {"groups", l.conv->groups}};
    if (l.gemm)
      j["gemm"] = {{"rows_per_sample", l.gemm->rows_per_sample}, {"n", l.gemm->n}, {"k", l.gemm->k}};
    layers.push_back(std::move(j));
  }
  nlohmann::json out{{"name", w.name}, {"precision", to_string(w.precision)}, {"sample_name", w.sample_name}};
  if (w.optimizer != Optimizer::sgd_momentum) out["optimizer"] = to_string(w.optimizer);
  if (w.sequence_length > 0) out["sequence_length"] = w.sequence_length;
  if (w.measured_batch > 0) out["measured_batch"] = w.measured_batch;
  if (w.update_time_s) out["update_time_s"] = *w.update_time_s;
  out["layers"] = std::move(layers);
  return out;
}

}  // namespace dasim::workload
