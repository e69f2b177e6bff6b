// One device's predicted training step (no communication): per-layer forward and backward times,
// the update, the input wait and the throughput they imply. `dasim workload show --calibration`
// prints it; it is the single-GPU quantity the published throughputs are compared with.
#pragma once

#include "compute/compute_model.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dasim::compute {

struct StepPrediction {
  int batch = 0;
  std::vector<double> forward_layers_s, backward_layers_s;  // forward order
  double forward_s = 0, backward_s = 0, update_s = 0, input_wait_s = 0;
  // Activation checkpointing: the blocks' forward run again in the backward (workload/recompute.hpp),
  // apart from backward_s and the per-layer times so that those stay each layer's own.
  double recompute_s = 0;
  // Of backward_s: the accumulation into zeroed gradients (workload/zero_grad.hpp).
  double gradient_accumulation_s = 0;
  UpdateParts update_parts;  // update_s by what runs
  double step_s() const { return forward_s + backward_s + recompute_s + update_s + input_wait_s; }
  double samples_per_s() const { return batch / step_s(); }
};

StepPrediction predict_step(const workload::Workload& workload, const ComputeModel& model, int batch);

// Forward and backward seconds summed over the layers of each kind (GEMMs as linear and
// attention, convolutions, norms, element-wise kernels...), largest first: the split that a
// profile's time per operator class is compared with.
struct KindTime {
  workload::LayerKind kind = workload::LayerKind::elementwise;
  double forward_s = 0, backward_s = 0;
  double total_s() const { return forward_s + backward_s; }
};
std::vector<KindTime> time_by_kind(const StepPrediction& step, const workload::Workload& workload);

// `calibration` names the file the model was built from.
nlohmann::ordered_json to_json(const StepPrediction& step, const workload::Workload& workload,
                               const ComputeModel& model, const std::string& calibration);
std::string render_step(const StepPrediction& step, const workload::Workload& workload,
                        const ComputeModel& model, const std::string& calibration);

}  // namespace dasim::compute
