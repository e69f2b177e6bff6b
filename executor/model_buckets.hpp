// The gradient buckets of one of the executor's models (the CPU Mlp or the GpuMlp: layers laid out
// one after the other in one flat buffer) and the hooks that start them during backward, shared by
// the MPI and the NCCL backends.
#pragma once

#include "mlp.hpp"
#include "schedules/run_schedule.hpp"
#include "schedules/schedule_spec.hpp"
#include "workload/buckets.hpp"
#include "workload/fragments.hpp"

#include <functional>
#include <vector>

namespace dasim::executor {

struct ModelBuckets {
  std::vector<workload::Bucket> buckets;  // sgd and islands only, in ready order
  std::vector<int> ending_at_layer;       // per layer: the bucket its gradient completes, or -1
};

// The layers' parameter counts of one of the executor's models, in forward order.
template <class Model>
std::vector<int64_t> model_layer_params(const Model& model) {
  std::vector<int64_t> layer_params;
  for (int l = 0; l < model.layers(); ++l) layer_params.push_back(model.layer_params(l));
  return layer_params;
}

template <class Model>
ModelBuckets plan_model_buckets(const Model& model, const schedules::ScheduleSpec& schedule) {
  ModelBuckets plan;
  const auto layer_params = model_layer_params(model);
  if (schedule.kind == schedules::ScheduleKind::sgd || schedules::has_islands(schedule))
    plan.buckets = workload::plan_buckets(layer_params, sizeof(float), schedule.bucket_cap_bytes);
  plan.ending_at_layer.assign(size_t(model.layers()), -1);
  for (size_t b = 0; b < plan.buckets.size(); ++b) plan.ending_at_layer[plan.buckets[b].first_layer] = int(b);
  return plan;
}

// The DiLoCo family's fragments of the model (one for diloco); none for the other schedules.
template <class Model>
std::vector<workload::Fragment> plan_model_fragments(const Model& model,
                                                     const schedules::ScheduleSpec& schedule) {
  if (!schedules::is_diloco_family(schedule)) return {};
  return workload::plan_fragments(model_layer_params(model), schedule.fragments);
}

// `poll` after every layer; `bucket_ready(b)` once bucket b's last layer has its gradient (none when
// bucket_ready is empty: the schedule starts nothing during backward).
inline MlpHooks backward_hooks(const std::vector<int>& ending_at_layer, std::function<void()> poll,
                               const schedules::BucketReady& bucket_ready) {
  MlpHooks hooks;
  hooks.poll = std::move(poll);
  if (bucket_ready)
    hooks.backward_done = [&ending_at_layer, &bucket_ready](int layer) {
      if (const int b = ending_at_layer[size_t(layer)]; b >= 0) bucket_ready(b);
    };
  return hooks;
}

}  // namespace dasim::executor
