// What one worker computes in one training step, derived once from the workload, the compute
// model and the bucket plan (pure: no SimGrid), so the schedules only replay it:
//   forward (all layers), backward in segments that each end where a gradient bucket becomes
//   ready, the optimizer update, and the DaSGD "apply the average" element-wise pass.
#pragma once

#include "compute/compute_model.hpp"
#include "workload/buckets.hpp"
#include "workload/workload.hpp"

#include <vector>

namespace dasim::workers {

struct BackwardSegment {
  double time_s = 0;
  int bucket = -1;  // bucket whose gradient is complete at the end of this segment, or -1
};

struct StepPlan {
  double forward_s = 0;
  std::vector<BackwardSegment> backward;  // in execution order (last layer first)
  // Per layer, in execution order (forward first layer first, backward last layer first): where a
  // rank that polls its collectives between layers (progress polled_rounds) makes its calls.
  std::vector<double> forward_layers_s, backward_layers_s;
  std::vector<int> bucket_after_backward_layer;  // per backward layer: the bucket it completes, or -1
  double update_s = 0;
  std::vector<double> bucket_bytes;  // in ready order
  double weight_bytes = 0;           // one full copy of the weights (what local SGD averages)
  double apply_average_s = 0;        // dasgd: w <- avg + (w - snapshot): 4 weight-sized streams
  double snapshot_s = 0;             // dasgd: copy of the weights: 2 weight-sized streams

  double backward_s() const;
  double step_compute_s() const { return forward_s + backward_s() + update_s; }
};

StepPlan plan_step(const workload::Workload& workload, const compute::ComputeModel& model,
                   double memory_bandwidth_Bps, int batch, double bucket_cap_bytes);

}  // namespace dasim::workers
