// Text and JSON reports of a workload (see workload_report.hpp).
#include "workload/workload_report.hpp"

#include "workload/workload_file.hpp"

#include "common/units.hpp"
#include "workload/buckets.hpp"
#include "workload/recompute.hpp"
#include "workload/shape_key.hpp"

#include <fmt/format.h>

namespace dasim::workload {
namespace {

double cap_of(const ReportOptions& options) {
  return options.bucket_cap_bytes > 0 ? options.bucket_cap_bytes : kDdpDefaultBucketCapBytes;
}

std::string shape_of(const Layer& l) {
  if (l.conv) return conv_shape_key(*l.conv);
  if (l.gemm) return gemm_shape_key(*l.gemm);
  return "";
}

// Master weights, plus autocast's per-step copy in the compute type under mixed precision.
double weight_bytes(const Workload& w) {
  double params = double(w.total_params());
  return params * (weight_bytes_per_element(w.precision) + (is_mixed_precision(w.precision) ? 2 : 0));
}

double optimizer_state_bytes(const Workload& w) {
  return double(w.total_params()) * weight_bytes_per_element(w.precision) * optimizer_states(w.optimizer);
}

}  // namespace

std::string render_workload_table(const Workload& w, const ReportOptions& options) {
  std::string out = fmt::format("workload {} ({}), precision {}, per {}{}\n\n", w.name, w.origin,
                                to_string(w.precision), w.sample_name,
                                w.sequence_length <= 0 ? std::string()
                                : w.shapes.empty()     ? fmt::format(" of {} tokens", w.sequence_length)
                                                   : fmt::format(" of up to {} tokens", w.sequence_length));
  if (!w.shapes.empty()) {
    std::vector<std::string> shapes;
    for (const auto& shape : w.shapes)
      shapes.push_back(shape.sequence_length > 0
                           ? fmt::format("{} tokens {:.1f}%", shape.sequence_length, 100 * shape.share)
                           : fmt::format("{:.1f}%", 100 * shape.share));
    out += fmt::format(
        "micro-batch shapes ({}): {}; a varying layer's figures are their share-weighted means, "
        "its time the mean of its shapes' times\n\n",
        w.shapes.size(), fmt::join(shapes, ", "));
  }
  out += fmt::format("{:>4}  {:<36} {:<11} {:>12} {:>12} {:>12} {:>11}  {}\n", "#", "layer", "kind", "params",
                     "fwd GFLOP", "bwd GFLOP", "act MiB", "shape / measured");
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[i];
    std::string extra = l.shapes.empty() ? shape_of(l) : fmt::format("mean of {} shapes", l.shapes.size());
    if (l.forward_time_s)
      extra += fmt::format("{}fwd {} bwd {} @ batch {}", extra.empty() ? "" : " ",
                           units::format_time(*l.forward_time_s), units::format_time(*l.backward_time_s),
                           l.measured_batch);
    std::string row = fmt::format("{:>4}  {:<36} {:<11} {:>12} {:>12.4f} {:>12.4f} {:>11.3f}  {}", i, l.name,
                                  to_string(l.kind), l.params, l.forward_flops / 1e9, l.backward_flops / 1e9,
                                  l.activation_bytes / (1024.0 * 1024.0), extra);
    row.erase(row.find_last_not_of(' ') + 1);  // no trailing blanks when a layer has no shape
    out += row + "\n";
  }
  out += fmt::format("\nlayers                   {}\n", w.layers.size());
  out += fmt::format("parameters               {}\n", w.total_params());
  out += fmt::format("gradient bytes           {:.0f} ({}, {} B per parameter in the allreduce)\n",
                     w.gradient_bytes(), units::format_bytes(w.gradient_bytes()), w.gradient_element_bytes());
  out += fmt::format("weight bytes             {:.0f} ({}, {} B per parameter{})\n", weight_bytes(w),
                     units::format_bytes(weight_bytes(w)), weight_bytes_per_element(w.precision),
                     is_mixed_precision(w.precision) ? " master copy + 2 B compute copy" : "");
  out += fmt::format("optimizer state bytes    {:.0f} ({}, {})\n", optimizer_state_bytes(w),
                     units::format_bytes(optimizer_state_bytes(w)), to_string(w.optimizer));
  if (w.grad_clip != GradClip::none)
    out += fmt::format("gradient clipping        global norm: {}\n",
                       w.grad_clip == GradClip::norm ? "norm only (below the threshold)" : "norm and scale");
  if (w.zero_grad == ZeroGrad::zero)
    out += "zero_grad                zero: a fill per tensor, backward adds into the zeroed gradients\n";
  if (w.zero_grad == ZeroGrad::fill_only)
    out += "zero_grad                fill_only: a fill per tensor, backward stores its gradients\n";
  if (w.activation_checkpointing == ActivationCheckpointing::blocks)
    out += fmt::format(
        "activation checkpointing blocks: each of the {} blocks runs its forward again before its backward\n",
        block_count(w));
  out += fmt::format("conv+linear GMACs/{:<7} {:.4f}\n", w.sample_name, w.conv_linear_macs() / 1e9);
  out += fmt::format("forward GFLOP/{:<11} {:.4f}\n", w.sample_name, w.forward_flops() / 1e9);
  out += fmt::format("backward GFLOP/{:<10} {:.4f}\n", w.sample_name, w.backward_flops() / 1e9);
  out += fmt::format("training GFLOP/batch {:<4} {:.4f}\n", options.batch,
                     (w.forward_flops() + w.backward_flops()) * options.batch / 1e9);
  out += fmt::format("activation MiB/batch {:<4} {:.2f}\n", options.batch,
                     w.activation_bytes() * options.batch / (1024.0 * 1024.0));

  auto buckets = plan_buckets(w, cap_of(options));
  out += fmt::format("\nDDP buckets (cap {:.0f} bytes = {}): {}\n", cap_of(options),
                     units::format_bytes(cap_of(options)), buckets.size());
  out += fmt::format("{:>4}  {:>14} {:>12}  {}\n", "#", "bytes", "params", "layers (ready after the first)");
  for (size_t i = 0; i < buckets.size(); ++i) {
    const Bucket& b = buckets[i];
    out += fmt::format("{:>4}  {:>14.0f} {:>12}  {} .. {}\n", i, b.bytes, b.params,
                       w.layers[b.first_layer].name, w.layers[b.last_layer].name);
  }
  return out;
}

nlohmann::ordered_json workload_report_json(const Workload& w, const ReportOptions& options) {
  using oj = nlohmann::ordered_json;
  // The workload file itself first (to_json, which parse_workload reads back), so the output
  // loads as a workload; what is derived from it goes under "report", which the loader ignores.
  const nlohmann::json file = to_json(w);
  oj out;
  for (const char* key :
       {"name", "precision", "sample_name", "optimizer", "grad_clip", "zero_grad", "activation_checkpointing",
        "sequence_length", "measured_batch", "update_time_s", "shapes"})
    if (file.contains(key)) out[key] = file.at(key);
  out["layers"] = oj::parse(file.at("layers").dump());
  // The key the compute model looks up per layer: one string (null: no GEMM or conv shape); for a
  // layer of several micro-batch shapes, one entry per shape, in the workload's shape order.
  auto key_of = [](const Layer& l) {
    const std::string key = shape_of(l);
    return key.empty() ? oj(nullptr) : oj(key);
  };
  oj shape_keys = oj::array();
  for (const auto& l : w.layers) {
    if (l.shapes.empty()) {
      shape_keys.push_back(key_of(l));
      continue;
    }
    oj per_shape = oj::array();
    for (const auto& shape : l.shapes) per_shape.push_back(key_of(in_shape(l, shape)));
    shape_keys.push_back(per_shape);
  }
  oj buckets = oj::array();
  for (const auto& b : plan_buckets(w, cap_of(options)))
    buckets.push_back({{"bytes", b.bytes},
                       {"params", b.params},
                       {"first_layer", w.layers[b.first_layer].name},
                       {"last_layer", w.layers[b.last_layer].name},
                       {"ready_after_layer", b.ready_after_layer}});
  out["report"] = oj{{"origin", w.origin},
                     {"optimizer", to_string(w.optimizer)},
                     {"grad_clip", to_string(w.grad_clip)},
                     {"zero_grad", to_string(w.zero_grad)},
                     {"activation_checkpointing", to_string(w.activation_checkpointing)},
                     {"batch", options.batch},
                     {"params", w.total_params()},
                     {"gradient_bytes", w.gradient_bytes()},
                     {"gradient_element_bytes", w.gradient_element_bytes()},
                     {"weight_bytes", weight_bytes(w)},
                     {"optimizer_state_bytes", optimizer_state_bytes(w)},
                     {"conv_linear_macs_per_sample", w.conv_linear_macs()},
                     {"forward_flops_per_sample", w.forward_flops()},
                     {"backward_flops_per_sample", w.backward_flops()},
                     {"training_flops_per_batch", (w.forward_flops() + w.backward_flops()) * options.batch},
                     {"activation_bytes_per_batch", w.activation_bytes() * options.batch},
                     {"bucket_cap_bytes", cap_of(options)},
                     {"buckets", buckets},
                     {"shape_keys", shape_keys}};
  return out;
}

}  // namespace dasim::workload
