#include "workers/step_plan.hpp"

namespace dasim::workers {

double StepPlan::backward_s() const {
  double total = 0;
  for (const auto& s : backward) total += s.time_s;
  return total;
}

StepPlan plan_step(const workload::Workload& workload, const compute::ComputeModel& model,
                   double memory_bandwidth_Bps, int batch, double bucket_cap_bytes) {
  StepPlan plan;
  for (const auto& layer : workload.layers) {
    plan.forward_layers_s.push_back(model.forward_time_s(layer, batch));
    plan.forward_s += plan.forward_layers_s.back();
  }
  auto buckets = workload::plan_buckets(workload, bucket_cap_bytes);
  std::vector<int> bucket_ready_at(workload.layers.size(), -1);
  for (size_t b = 0; b < buckets.size(); ++b) {
    bucket_ready_at[buckets[b].ready_after_layer] = static_cast<int>(b);
    plan.bucket_bytes.push_back(buckets[b].bytes);
  }
  BackwardSegment open;
  for (size_t i = workload.layers.size(); i-- > 0;) {
    plan.backward_layers_s.push_back(model.backward_time_s(workload.layers[i], batch));
    plan.bucket_after_backward_layer.push_back(bucket_ready_at[i]);
    open.time_s += plan.backward_layers_s.back();
    if (bucket_ready_at[i] >= 0) {
      open.bucket = bucket_ready_at[i];
      plan.backward.push_back(open);
      open = BackwardSegment{};
    }
  }
  if (open.time_s > 0 || plan.backward.empty()) plan.backward.push_back(open);
  plan.update_s = model.update_time_s(workload);
  plan.weight_bytes = workload.gradient_bytes();
  if (memory_bandwidth_Bps > 0) {
    plan.apply_average_s = 4 * plan.weight_bytes / memory_bandwidth_Bps;
    plan.snapshot_s = 2 * plan.weight_bytes / memory_bandwidth_Bps;
  }
  return plan;
}

}  // namespace dasim::workers
