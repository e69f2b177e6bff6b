// Which host event encloses which in a torch.profiler trace. Kineto writes no parent links:
// an op, the record_function scopes around it, the Python frames (with_stack=True) and the CUDA
// runtime calls it makes are complete events on one pid/tid whose [ts, ts + dur] nest. Sweeping
// each thread's events in start order with a stack recovers the tree; a GPU activity is then
// placed by its launch (the runtime call with the same correlation id) and the launch's ancestors.
#pragma once

#include "workload/profiler_trace.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace dasim::workload::trace {

inline constexpr size_t kNoEvent = static_cast<size_t>(-1);

class Nesting {
 public:
  explicit Nesting(const Trace& trace);

  size_t parent(size_t event) const { return parent_[event]; }
  // `event` and its enclosing host events, innermost first.
  std::vector<size_t> chain(size_t event) const;
  // A module call (python_function "nn.Module: X_n") that encloses no other module call.
  bool is_leaf_module(size_t event) const { return leaf_module_[event]; }

 private:
  std::vector<size_t> parent_;
  std::vector<bool> leaf_module_;
};

bool is_module_call(const TraceEvent& event);                    // "nn.Module: Conv2d_0"
std::string_view module_instance_name(const TraceEvent& event);  // "Conv2d_0"
bool is_backward_node(const TraceEvent& event);                  // "autograd::engine::evaluate_function: ..."
bool is_optimizer_scope(const TraceEvent& event);  // "Optimizer.step#SGD.step", "Optimizer.zero_grad#..."
bool is_step_marker(const TraceEvent& event);      // "ProfilerStep#N"
bool is_nccl_kernel(const TraceEvent& event);      // "ncclKernel_..." / "ncclDevKernel_..."
bool is_host_copy(const TraceEvent& event);        // "Memcpy HtoD (...)", "Memcpy DtoH (...)"

}  // namespace dasim::workload::trace
