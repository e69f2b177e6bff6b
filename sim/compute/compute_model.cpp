// Layer and update times from a calibration (see compute_model.hpp).
#include "compute/compute_model.hpp"

#include "common/errors.hpp"
#include "workload/shape_key.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::compute {

using workload::Layer;
using workload::LayerKind;

ComputeModel::ComputeModel(const calibration::Calibration& calibration, const std::string& precision)
    : fitted_(calibration.fitted), precision_(precision) {
  const auto& names = calibration::precision_names();
  if (std::find(names.begin(), names.end(), precision) == names.end())
    throw InputError("precision", "",
                     fmt::format("expected one of {}, got \"{}\"", fmt::join(names, ", "), precision));
  auto it = calibration.fitted.flops.find(precision);
  if (it == calibration.fitted.flops.end()) {
    it = calibration.fitted.flops.find("fp32");
    fell_back_ = true;
  }
  if (it == calibration.fitted.flops.end())
    throw InputError("calibration", "fitted.flops.fp32", "required key is missing");
  flops_ = it->second;
  for (const auto& entry : calibration.per_shape)
    if (entry.precision == precision_) shape_times_s_[{entry.kind, entry.key, entry.batch}] = entry.time_s;
}

ComputeModel::ComputeModel(const calibration::Calibration& calibration, workload::Precision precision)
    : ComputeModel(calibration, std::string(workload::to_string(precision))) {}

double ComputeModel::achieved_flops(LayerKind kind, double flops_per_call) const {
  switch (kind) {
    case LayerKind::conv:
      return flops_ * calibration::efficiency_at(fitted_.conv_efficiency, flops_per_call);
    case LayerKind::linear:
    case LayerKind::attention:
      return flops_ * calibration::efficiency_at(fitted_.gemm_efficiency, flops_per_call);
    default:
      return flops_;
  }
}

const double* ComputeModel::find_shape(const std::string& kind, const std::string& key, int batch) const {
  auto it = shape_times_s_.find({kind, key, batch});
  return it == shape_times_s_.end() ? nullptr : &it->second;
}

double ComputeModel::roofline_s(LayerKind kind, double flops, double call_flops, double bytes) const {
  double compute_s = flops > 0 ? flops / achieved_flops(kind, call_flops) : 0;
  double memory_s = bytes / fitted_.memory_bandwidth_Bps;
  return std::max(compute_s, memory_s) + fitted_.launch_overhead_s;
}

namespace {

void check_batch(int batch) {
  if (batch <= 0) throw InputError("batch", "", fmt::format("expected a positive batch, got {}", batch));
}

}  // namespace

double ComputeModel::forward_time_s(const Layer& layer, int batch) const {
  check_batch(batch);
  if (layer.forward_time_s && layer.measured_batch > 0)
    return *layer.forward_time_s * batch / layer.measured_batch;
  if (layer.conv) {
    if (auto* s = find_shape("conv_fwd", workload::conv_shape_key(*layer.conv), batch)) return *s;
  } else if (layer.gemm) {
    if (auto* s = find_shape("gemm", workload::gemm_shape_key(*layer.gemm), batch)) return *s;
  }
  return roofline_s(layer.kind, layer.forward_flops * batch, layer.forward_flops * batch,
                    layer.activation_bytes * batch);
}

double ComputeModel::backward_time_s(const Layer& layer, int batch) const {
  check_batch(batch);
  if (layer.backward_time_s && layer.measured_batch > 0)
    return *layer.backward_time_s * batch / layer.measured_batch;
  if (layer.conv) {
    std::string key = workload::conv_shape_key(*layer.conv);
    bool needs_data_gradient = layer.backward_flops > layer.forward_flops;
    const auto* filter = find_shape("conv_bwd_filter", key, batch);
    const auto* data = needs_data_gradient ? find_shape("conv_bwd_data", key, batch) : nullptr;
    if (filter && (data || !needs_data_gradient)) return *filter + (data ? *data : 0);
  } else if (layer.gemm && layer.forward_flops > 0) {
    if (auto* s = find_shape("gemm", workload::gemm_shape_key(*layer.gemm), batch))
      return *s * layer.backward_flops / layer.forward_flops;
  }
  return roofline_s(layer.kind, layer.backward_flops * batch, layer.forward_flops * batch,
                    2 * layer.activation_bytes * batch);
}

double ComputeModel::update_time_s(const workload::Workload& workload) const {
  if (workload.update_time_s) return *workload.update_time_s;  // profiled: the real thing
  double bytes = 5.0 * double(workload.total_params()) * workload::bytes_per_element(workload.precision);
  return bytes / fitted_.memory_bandwidth_Bps + fitted_.launch_overhead_s;
}

double ComputeModel::step_compute_time_s(const workload::Workload& workload, int batch) const {
  double total = update_time_s(workload);
  for (const auto& layer : workload.layers)
    total += forward_time_s(layer, batch) + backward_time_s(layer, batch);
  return total;
}

}  // namespace dasim::compute
