// One training step of a torch.profiler trace, its GPU time attributed to layers.
//
// Each GPU activity (kernel, memcpy, memset) is placed by the host call that launched it: the
// CUDA runtime event with the same correlation id (else the op whose "External id" it names),
// and the events enclosing that call on its thread (profiler_trace_nesting.hpp). Then, in order:
//   - inside "Optimizer.step#..." / "Optimizer.zero_grad#...": the optimizer (outside the layers);
//   - a host <-> device copy (Memcpy HtoD / DtoH: the batch, loss.item()): outside the layers;
//   - inside "autograd::engine::evaluate_function: XBackward0": backward of the forward layer whose
//     op has the same "Sequence number" (the autograd node the op recorded);
//   - launched before the step's first backward node: forward of its layer;
//   - anything else (AccumulateGrad, the seed gradient, ops outside the modules): not attributed,
//     still step compute outside the layers.
// A layer is the innermost nn.Module call that calls no other module ("nn.Module: Conv2d_0",
// with_stack=True); an op called directly in a module that has submodules (a residual add in a
// block) is its own layer "Block_0.aten::add"; with no module calls in the trace, each top-level
// op is a layer. NCCL kernels are dropped (the simulator models communication itself).
#pragma once

#include "workload/layer.hpp"
#include "workload/profiler_trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dasim::workload::trace {

struct TraceLayer {
  std::string name;
  LayerKind kind = LayerKind::elementwise;
  double forward_us = 0;
  double backward_us = 0;
  int forward_activities = 0;
  int backward_activities = 0;
  bool takes_weights = false;                 // runs a conv / linear / norm / embedding op
  std::optional<int64_t> params_from_shapes;  // nullopt: the trace recorded no shapes for it
};

struct StepAttribution {
  std::string step;                // "ProfilerStep#3", or "the whole trace" when it has no steps
  std::vector<TraceLayer> layers;  // forward order; only layers that ran GPU work
  double optimizer_us = 0;
  int optimizer_activities = 0;
  double host_copy_us = 0;
  int host_copies = 0;
  double unattributed_us = 0;
  int unattributed_activities = 0;
  int nccl_kernels_dropped = 0;
  int memcpy_memset_in_layers = 0;  // device copies and fills counted in the layer that launched them
  std::vector<int64_t> streams;     // streams the step's GPU work ran on
  double stream_overlap_us = 0;     // sum of durations minus the time the GPU was busy
  bool module_calls = false;        // layers are nn.Module calls (else top-level ops)

  double forward_us() const;
  double backward_us() const;
  double outside_layers_us() const { return optimizer_us + host_copy_us + unattributed_us; }
};

// Attributes `step_number` (ProfilerStep#N), or the last complete step (one with forward and
// backward GPU work) when unset. Throws InputError `FILE: traceEvents: what` for a trace with no
// GPU kernels, no such step, no complete step, or GPU work of more than one device.
StepAttribution attribute_step(const Trace& trace, std::optional<int> step_number);

}  // namespace dasim::workload::trace
