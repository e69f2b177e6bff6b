// Layer and update times from a calibration (see compute_model.hpp).
#include "compute/compute_model.hpp"

#include "common/errors.hpp"
#include "workload/parameter_tensors.hpp"
#include "workload/shape_key.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::compute {

using workload::Layer;
using workload::LayerKind;

std::string kernel_class(const Layer& layer, Pass pass) {
  if (layer.kind == LayerKind::linear || layer.kind == LayerKind::attention) return "gemm";
  if (layer.kind != LayerKind::conv) return "";
  std::string shape = layer.conv ? workload::conv_kernel_family(*layer.conv) : "conv_other";
  switch (pass) {
    case Pass::forward:
      return shape + ".forward";
    case Pass::backward_data:
      return shape + ".backward_data";
    case Pass::backward_filter:
      return shape + ".backward_filter";
  }
  return shape;
}

ComputeModel::ComputeModel(const calibration::Calibration& calibration, workload::Precision precision)
    : fitted_(calibration.fitted),
      precision_(precision),
      compute_precision_(workload::compute_precision(precision)) {
  const auto& flops = calibration.fitted.flops;
  auto fp32 = flops.find("fp32");
  if (fp32 == flops.end()) throw InputError("calibration", "fitted.flops.fp32", "required key is missing");
  elementwise_flops_ = fp32->second;
  auto it = flops.find(compute_precision_);
  fell_back_ = it == flops.end();
  flops_ = fell_back_ ? fp32->second : it->second;
  // A fallback to the fp32 rate takes the fp32 curves and shapes with it: they describe that rate.
  const std::string measured_as = fell_back_ ? "fp32" : compute_precision_;
  if (auto c = fitted_.efficiency_curves.find(measured_as); c != fitted_.efficiency_curves.end())
    curves_ = c->second;
  for (const auto& entry : calibration.per_shape)
    if (entry.precision == measured_as) shape_times_s_[{entry.kind, entry.key, entry.batch}] = entry.time_s;
}

ComputeModel::ComputeModel(const calibration::Calibration& calibration, const std::string& precision)
    : ComputeModel(calibration, workload::parse_precision(precision, "precision")) {}

double ComputeModel::efficiency(const Layer& layer, Pass pass, double flops_per_call) const {
  std::string kernel = kernel_class(layer, pass);
  if (auto it = curves_.find(kernel); it != curves_.end())
    return calibration::efficiency_at(it->second, flops_per_call);
  if (layer.kind == LayerKind::conv)
    return calibration::efficiency_at(fitted_.conv_efficiency, flops_per_call);
  if (kernel == "gemm") return calibration::efficiency_at(fitted_.gemm_efficiency, flops_per_call);
  return 1.0;
}

double ComputeModel::achieved_flops(const Layer& layer, Pass pass, double flops_per_call) const {
  if (kernel_class(layer, pass).empty()) return elementwise_flops_;
  return flops_ * efficiency(layer, pass, flops_per_call);
}

double ComputeModel::achieved_flops(LayerKind kind, double flops_per_call) const {
  Layer generic;
  generic.kind = kind;
  return achieved_flops(generic, Pass::forward, flops_per_call);
}

const double* ComputeModel::find_shape(const std::string& kind, const std::string& key, int batch) const {
  auto it = shape_times_s_.find({kind, key, batch});
  return it == shape_times_s_.end() ? nullptr : &it->second;
}

double ComputeModel::pass_time_s(double compute_s, double bytes) const {
  double gpu_s = std::max(compute_s, bytes / fitted_.memory_bandwidth_Bps) + fitted_.launch_overhead_s;
  return std::max(gpu_s, fitted_.host_overhead_per_kernel_s);
}

namespace {

// What a layer's backward streams per sample when the file does not say: twice the forward's
// bytes (it reads the output gradient and the saved input, writes the input gradient), except for
// a concat, whose backward is a split: it reads the output gradient and writes each branch's slice,
// the same bytes as its forward copy.
double backward_bytes(const Layer& layer) {
  if (layer.backward_activation_bytes) return *layer.backward_activation_bytes;
  return (layer.kind == LayerKind::concat ? 1 : 2) * layer.activation_bytes;
}

void check_batch(int batch) {
  if (batch <= 0) throw InputError("batch", "", fmt::format("expected a positive batch, got {}", batch));
}

// A layer whose figures vary by sample shape: each shape timed as a layer of its own, the times
// weighted by the shapes' shares of the micro-batches. Not the time of the mean FLOPs: efficiency
// and the launch floor make time not linear in the shape (a short bin's GEMMs run further below
// peak).
template <class TimeOf>
double shape_weighted_s(const Layer& layer, TimeOf time_of) {
  double seconds = 0;
  for (const auto& shape : layer.shapes) seconds += shape.share * time_of(workload::in_shape(layer, shape));
  return seconds;
}
}  // namespace

double ComputeModel::forward_time_s(const Layer& layer, int batch) const {
  check_batch(batch);
  if (!layer.shapes.empty())
    return shape_weighted_s(layer, [&](const Layer& one) { return forward_time_s(one, batch); });
  if (layer.forward_time_s && layer.measured_batch > 0)
    return *layer.forward_time_s * batch / layer.measured_batch;
  if (layer.conv) {
    if (auto* s = find_shape("conv_fwd", workload::conv_shape_key(*layer.conv), batch)) return *s;
  } else if (layer.gemm) {
    if (auto* s = find_shape("gemm", workload::gemm_shape_key(*layer.gemm), batch)) return *s;
  }
  double flops = layer.forward_flops * batch;
  double compute_s = flops > 0 ? flops / achieved_flops(layer, Pass::forward, flops) : 0;
  return pass_time_s(compute_s, layer.activation_bytes * batch);
}

double ComputeModel::backward_time_s(const Layer& layer, int batch) const {
  check_batch(batch);
  if (!layer.shapes.empty())
    return shape_weighted_s(layer, [&](const Layer& one) { return backward_time_s(one, batch); });
  if (layer.backward_time_s && layer.measured_batch > 0)
    return *layer.backward_time_s * batch / layer.measured_batch;
  const double call_flops = layer.forward_flops * batch;
  double compute_s = 0;
  if (layer.conv) {
    std::string key = workload::conv_shape_key(*layer.conv);
    bool needs_data_gradient = layer.backward_flops > layer.forward_flops;
    const auto* filter = find_shape("conv_bwd_filter", key, batch);
    const auto* data = needs_data_gradient ? find_shape("conv_bwd_data", key, batch) : nullptr;
    if (filter && (data || !needs_data_gradient)) return *filter + (data ? *data : 0);
    // The weight gradient has the forward's FLOPs; the input gradient the rest.
    double filter_flops = std::min(layer.backward_flops, layer.forward_flops) * batch;
    double data_flops = layer.backward_flops * batch - filter_flops;
    if (filter_flops > 0)
      compute_s += filter_flops / achieved_flops(layer, Pass::backward_filter, call_flops);
    if (data_flops > 0) compute_s += data_flops / achieved_flops(layer, Pass::backward_data, call_flops);
  } else {
    if (layer.gemm && layer.forward_flops > 0)
      if (auto* s = find_shape("gemm", workload::gemm_shape_key(*layer.gemm), batch))
        return *s * layer.backward_flops / layer.forward_flops;
    double flops = layer.backward_flops * batch;
    if (flops > 0) compute_s = flops / achieved_flops(layer, Pass::backward_data, call_flops);
  }
  return pass_time_s(compute_s, backward_bytes(layer) * batch);
}

namespace {

// Bytes moved and kernels launched by one part of the update.
struct Traffic {
  double bytes = 0;
  int kernels = 0;
};

struct UpdateTraffic {
  Traffic optimizer, mixed_precision, clip, zero_fill;
};

UpdateTraffic update_traffic(const workload::Workload& workload, int shards) {
  const double params = double(workload.total_params()) / shards;
  const double element_bytes = workload::weight_bytes_per_element(workload.precision);
  UpdateTraffic t;
  if (workload::is_per_tensor(workload.optimizer)) {
    // A loop over the tensors: every tensor pays its kernels' launches, however small it is (most
    // of BERT's tensors are biases and LayerNorm vectors of 1,024 elements).
    for (const auto& tensor : workload::parameter_tensors(workload)) {
      const auto update = workload::per_tensor_update(workload.optimizer, tensor.weight_decay);
      t.optimizer.bytes += update.streams * double(tensor.elements) / shards * element_bytes;
      t.optimizer.kernels += update.kernels;
    }
  } else {
    t.optimizer.bytes = workload::update_streams(workload.optimizer) * params * element_bytes;
    t.optimizer.kernels = workload::update_kernels(workload.optimizer);
  }
  if (workload::is_mixed_precision(workload.precision))
    t.mixed_precision = {params * (4 + 2) + params * (4 + 4),
                         2};  // weight cast; gradient unscale + inf check
  // Clipping reads (and may rescale) the gradients the update receives: after the unscale in amp.
  const int gradient_bytes = workload::gradient_bytes_per_element(workload.precision);
  t.clip = {workload::clip_streams(workload.grad_clip) * params * gradient_bytes,
            workload::clip_kernels(workload.grad_clip)};
  // zero_grad() fills every gradient tensor with zeros, one kernel per tensor.
  if (const int fill = workload::zero_fill_streams(workload.zero_grad); fill > 0)
    t.zero_fill = {fill * params * gradient_bytes,
                   static_cast<int>(workload::parameter_tensors(workload).size())};
  return t;
}

}  // namespace

double ComputeModel::update_time_s(const workload::Workload& workload, int shards) const {
  // Profiled: the real thing, streaming 1/shards of it when sharded.
  if (workload.update_time_s) return *workload.update_time_s / shards;
  const auto t = update_traffic(workload, shards);
  // One sum of bytes and one of launches, so the total does not depend on how the parts round.
  double bytes = t.optimizer.bytes;
  bytes += t.mixed_precision.bytes;
  bytes += t.clip.bytes;
  bytes += t.zero_fill.bytes;
  const int kernels = t.optimizer.kernels + t.mixed_precision.kernels + t.clip.kernels + t.zero_fill.kernels;
  return bytes / fitted_.memory_bandwidth_Bps + kernels * fitted_.launch_overhead_s;
}

UpdateParts ComputeModel::update_parts(const workload::Workload& workload, int shards) const {
  UpdateParts parts;
  if (workload.update_time_s) {
    parts.optimizer_s = *workload.update_time_s / shards;
    return parts;
  }
  const auto t = update_traffic(workload, shards);
  auto seconds = [&](const Traffic& part) {
    return part.bytes / fitted_.memory_bandwidth_Bps + part.kernels * fitted_.launch_overhead_s;
  };
  parts.optimizer_s = seconds(t.optimizer);
  parts.mixed_precision_s = seconds(t.mixed_precision);
  parts.clip_s = seconds(t.clip);
  parts.zero_fill_s = seconds(t.zero_fill);
  return parts;
}

double ComputeModel::gradient_streams_s(const workload::Workload& workload, const Layer& layer, int streams,
                                        int shards) const {
  if (streams == 0 || layer.params == 0) return 0;
  const double element_bytes = workload::gradient_bytes_per_element(workload.precision);
  double total = 0;
  for (const auto& tensor : workload::parameter_tensors(layer))
    total += streams * double(tensor.elements) / shards * element_bytes / fitted_.memory_bandwidth_Bps +
             fitted_.launch_overhead_s;
  return total;
}

double ComputeModel::gradient_accumulation_s(const workload::Workload& workload, const Layer& layer,
                                             int shards) const {
  // Timed layers (the condition backward_time_s uses) already hold what their run did.
  if (layer.backward_time_s && layer.measured_batch > 0) return 0;
  return gradient_streams_s(workload, layer, workload::accumulate_streams(workload.zero_grad), shards);
}

double ComputeModel::micro_batch_add_s(const workload::Workload& workload, const Layer& layer) const {
  // zero adds on every micro-batch already: in the modelled backward, or in a timed layer's run.
  const int adds = workload::accumulate_streams(workload::ZeroGrad::zero);
  return gradient_streams_s(workload, layer, adds - workload::accumulate_streams(workload.zero_grad), 1);
}

double ComputeModel::layer_backward_s(const workload::Workload& workload, const Layer& layer, int batch,
                                      int shards) const {
  return backward_time_s(layer, batch) + gradient_accumulation_s(workload, layer, shards);
}

double ComputeModel::input_time_s(double samples) const {
  return samples * fitted_.input_per_sample_s;
}

double ComputeModel::input_wait_s(double samples, double step_compute_s) const {
  return std::max(0.0, input_time_s(samples) - step_compute_s);
}

}  // namespace dasim::compute
