// The enclosing tree of a trace's host events, and the names that mark its parts
// (see profiler_trace_nesting.hpp).
#include "workload/profiler_trace_nesting.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace dasim::workload::trace {
namespace {

// Kineto formats times to the nanosecond ("155.000" us); a nested event may end on its parent's
// last nanosecond, which double arithmetic can place a rounding error beyond.
constexpr double kNestingSlackUs = 1e-3;

bool is_host(const TraceEvent& e) {
  return !e.is_gpu_activity();
}

bool encloses(const TraceEvent& outer, const TraceEvent& inner) {
  return outer.ts_us <= inner.ts_us + kNestingSlackUs && inner.end_us() <= outer.end_us() + kNestingSlackUs;
}

// At equal start and length, scopes enclose ops and ops enclose the runtime calls they make.
int nesting_rank(EventKind kind) {
  switch (kind) {
    case EventKind::user_annotation:
      return 0;
    case EventKind::python_function:
      return 1;
    case EventKind::cpu_op:
      return 2;
    default:
      return 3;
  }
}

}  // namespace

Nesting::Nesting(const Trace& trace)
    : parent_(trace.events.size(), kNoEvent), leaf_module_(trace.events.size(), false) {
  std::map<std::string, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < trace.events.size(); ++i)
    if (is_host(trace.events[i])) by_thread[trace.events[i].thread].push_back(i);

  for (auto& [thread, indices] : by_thread) {
    std::sort(indices.begin(), indices.end(), [&](size_t a, size_t b) {
      const auto &x = trace.events[a], &y = trace.events[b];
      if (x.ts_us != y.ts_us) return x.ts_us < y.ts_us;
      if (x.dur_us != y.dur_us) return x.dur_us > y.dur_us;
      if (nesting_rank(x.kind) != nesting_rank(y.kind)) return nesting_rank(x.kind) < nesting_rank(y.kind);
      return a < b;
    });
    std::vector<size_t> open;
    for (size_t i : indices) {
      while (!open.empty() && !encloses(trace.events[open.back()], trace.events[i])) open.pop_back();
      if (!open.empty()) parent_[i] = open.back();
      open.push_back(i);
    }
  }

  for (size_t i = 0; i < trace.events.size(); ++i)
    if (is_module_call(trace.events[i])) leaf_module_[i] = true;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    if (!is_module_call(trace.events[i])) continue;
    for (size_t p = parent_[i]; p != kNoEvent; p = parent_[p])
      if (is_module_call(trace.events[p])) {
        leaf_module_[p] = false;
        break;
      }
  }
}

std::vector<size_t> Nesting::chain(size_t event) const {
  std::vector<size_t> out;
  for (size_t e = event; e != kNoEvent; e = parent_[e]) out.push_back(e);
  return out;
}

namespace {
constexpr std::string_view kModulePrefix = "nn.Module: ";
}

bool is_module_call(const TraceEvent& e) {
  return e.kind == EventKind::python_function && e.name.starts_with(kModulePrefix);
}

std::string_view module_instance_name(const TraceEvent& e) {
  return std::string_view(e.name).substr(kModulePrefix.size());
}

bool is_backward_node(const TraceEvent& e) {
  return e.kind == EventKind::cpu_op && e.name.starts_with("autograd::engine::evaluate_function: ");
}

bool is_optimizer_scope(const TraceEvent& e) {
  return (e.kind == EventKind::user_annotation || e.kind == EventKind::cpu_op) &&
         e.name.starts_with("Optimizer.");
}

bool is_step_marker(const TraceEvent& e) {
  return (e.kind == EventKind::user_annotation || e.kind == EventKind::cpu_op) &&
         e.name.starts_with("ProfilerStep#");
}

bool is_nccl_kernel(const TraceEvent& e) {
  return e.kind == EventKind::kernel &&
         (e.name.starts_with("ncclKernel") || e.name.starts_with("ncclDevKernel"));
}

bool is_host_copy(const TraceEvent& e) {
  return e.kind == EventKind::memcpy &&
         (e.name.starts_with("Memcpy HtoD") || e.name.starts_with("Memcpy DtoH"));
}

}  // namespace dasim::workload::trace
