// Attributing one step's GPU time to layers, forward, backward and the rest
// (see profiler_trace_steps.hpp for the rules).
#include "workload/profiler_trace_steps.hpp"

#include "common/errors.hpp"
#include "workload/profiler_trace_nesting.hpp"
#include "workload/profiler_trace_params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace dasim::workload::trace {
namespace {

constexpr double kSlackUs = 1e-3;  // see kNestingSlackUs

struct StepWindow {
  std::string name;
  double begin_us = 0;
  double end_us = 0;
  bool contains(double ts_us) const { return ts_us + kSlackUs >= begin_us && ts_us <= end_us + kSlackUs; }
};

// The layer kind a module class or op name suggests, by the first keyword it contains.
std::optional<LayerKind> kind_from_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::array<std::pair<const char*, LayerKind>, 10> keywords{{
      {"conv", LayerKind::conv},
      {"attention", LayerKind::attention},
      {"scaled_dot_product", LayerKind::attention},
      {"linear", LayerKind::linear},
      {"addmm", LayerKind::linear},
      {"matmul", LayerKind::linear},
      {"aten::mm", LayerKind::linear},
      {"norm", LayerKind::norm},
      {"embedding", LayerKind::embedding},
      {"pool", LayerKind::pooling},
  }};
  for (const auto& [keyword, kind] : keywords)
    if (lower.find(keyword) != std::string::npos) return kind;
  return std::nullopt;
}

struct Unit {
  std::string name;
  double start_us = 0;
  bool is_module = false;
  std::optional<LayerKind> module_kind;
  std::vector<std::string> op_names;
  bool takes_weights = false;
  std::map<size_t, int64_t> params_by_call;  // module or op call -> parameters of its weighted ops
  TraceLayer totals;
};

class StepClassifier {
 public:
  StepClassifier(const Trace& trace, const Nesting& nesting, const std::vector<size_t>& launch_of,
                 StepWindow window)
      : trace_(trace), nesting_(nesting), launch_of_(launch_of), window_(std::move(window)) {
    for (const auto& e : trace_.events) {
      if (!window_.contains(e.ts_us)) continue;
      if (is_module_call(e)) module_calls_ = true;
      if (is_backward_node(e)) first_backward_us_ = std::min(first_backward_us_, e.ts_us);
    }
  }

  StepAttribution run() {
    result_.step = window_.name;
    result_.module_calls = module_calls_;
    register_forward_ops();
    std::vector<std::pair<double, double>> busy;
    std::set<int64_t> streams;
    for (size_t i = 0; i < trace_.events.size(); ++i) {
      const TraceEvent& a = trace_.events[i];
      if (!a.is_gpu_activity()) continue;
      size_t launch = launch_of_[i];
      if (!window_.contains(launch == kNoEvent ? a.ts_us : trace_.events[launch].ts_us)) continue;
      if (is_nccl_kernel(a)) {
        ++result_.nccl_kernels_dropped;
        continue;
      }
      busy.emplace_back(a.ts_us, a.end_us());
      if (a.stream) streams.insert(*a.stream);
      classify(a, launch);
    }
    result_.streams.assign(streams.begin(), streams.end());
    result_.stream_overlap_us = overlap_us(busy);
    collect_layers();
    return result_;
  }

 private:
  bool in_backward_or_optimizer(const std::vector<size_t>& chain) const {
    return std::any_of(chain.begin(), chain.end(), [&](size_t e) {
      return is_backward_node(trace_.events[e]) || is_optimizer_scope(trace_.events[e]);
    });
  }

  // The layer of a host event given its chain (innermost first), created on first sight.
  Unit* unit_of(const std::vector<size_t>& chain) {
    auto module =
        std::find_if(chain.begin(), chain.end(), [&](size_t e) { return is_module_call(trace_.events[e]); });
    if (module != chain.end() && nesting_.is_leaf_module(*module)) {
      const TraceEvent& m = trace_.events[*module];
      Unit& unit = unit_named("m:" + m.name, std::string(module_instance_name(m)), m.ts_us);
      unit.is_module = true;
      std::string_view instance = module_instance_name(m);
      unit.module_kind = kind_from_name(instance.substr(0, instance.rfind('_')));
      return &unit;
    }
    if (module == chain.end() && module_calls_) return nullptr;  // outside the model's modules
    size_t outermost_op = kNoEvent;
    for (auto it = chain.begin(); it != module; ++it) {
      const TraceEvent& e = trace_.events[*it];
      if (e.kind == EventKind::cpu_op && !is_step_marker(e) && !is_optimizer_scope(e) && !is_backward_node(e))
        outermost_op = *it;
    }
    if (outermost_op == kNoEvent) return nullptr;
    const TraceEvent& op = trace_.events[outermost_op];
    std::string prefix =
        module == chain.end() ? "" : std::string(module_instance_name(trace_.events[*module])) + ".";
    return &unit_named("o:" + std::to_string(outermost_op), prefix + op.name, op.ts_us);
  }

  Unit& unit_named(const std::string& key, const std::string& name, double start_us) {
    auto [it, inserted] = units_.try_emplace(key);
    if (inserted) {
      it->second.name = name;
      it->second.start_us = start_us;
    }
    return it->second;
  }

  // The call whose parameters an op's weights are: its module call, or its outermost op.
  size_t call_of(const std::vector<size_t>& chain) const {
    for (size_t e : chain)
      if (is_module_call(trace_.events[e])) return e;
    size_t call = chain.front();
    for (size_t e : chain)
      if (trace_.events[e].kind == EventKind::cpu_op && !is_step_marker(trace_.events[e])) call = e;
    return call;
  }

  // Forward ops: their layer, the sequence numbers that map backward nodes to it, its weights.
  void register_forward_ops() {
    for (size_t i = 0; i < trace_.events.size(); ++i) {
      const TraceEvent& op = trace_.events[i];
      if (op.kind != EventKind::cpu_op || !window_.contains(op.ts_us) || op.ts_us >= first_backward_us_)
        continue;
      std::vector<size_t> chain = nesting_.chain(i);
      if (in_backward_or_optimizer(chain)) continue;
      Unit* unit = unit_of(chain);
      if (!unit) continue;
      unit->op_names.push_back(op.name);
      if (op.sequence_number) layer_of_sequence_.try_emplace(*op.sequence_number, unit);
      bool outermost_weighted = std::none_of(chain.begin() + 1, chain.end(), [&](size_t e) {
        return trace_.events[e].kind == EventKind::cpu_op && is_weighted_op(trace_.events[e].name);
      });
      if (!is_weighted_op(op.name) || !outermost_weighted) continue;
      unit->takes_weights = true;
      if (auto params = params_from_input_dims(op, trace_.file))
        unit->params_by_call[call_of(chain)] += *params;
    }
  }

  void classify(const TraceEvent& a, size_t launch) {
    if (launch == kNoEvent) return not_attributed(a);
    std::vector<size_t> chain = nesting_.chain(launch);
    auto has = [&](bool (*what)(const TraceEvent&)) {
      return std::any_of(chain.begin(), chain.end(), [&](size_t e) { return what(trace_.events[e]); });
    };
    if (has(is_optimizer_scope)) {
      result_.optimizer_us += a.dur_us;
      ++result_.optimizer_activities;
    } else if (is_host_copy(a)) {
      result_.host_copy_us += a.dur_us;
      ++result_.host_copies;
    } else if (has(is_backward_node)) {
      backward(a, chain);
    } else if (trace_.events[launch].ts_us < first_backward_us_) {
      Unit* unit = unit_of(chain);
      if (!unit) return not_attributed(a);
      add(a, unit->totals.forward_us, unit->totals.forward_activities);
    } else {
      not_attributed(a);
    }
  }

  // The backward node's sequence number: its own, else that of the XBackward0 op it runs.
  void backward(const TraceEvent& a, const std::vector<size_t>& chain) {
    std::optional<int64_t> sequence;
    for (size_t e : chain) {
      if (!sequence) sequence = trace_.events[e].sequence_number;
      if (is_backward_node(trace_.events[e])) break;
    }
    auto it = sequence ? layer_of_sequence_.find(*sequence) : layer_of_sequence_.end();
    if (it == layer_of_sequence_.end()) return not_attributed(a);
    add(a, it->second->totals.backward_us, it->second->totals.backward_activities);
  }

  void add(const TraceEvent& a, double& time_us, int& count) {
    time_us += a.dur_us;
    ++count;
    if (a.kind != EventKind::kernel) ++result_.memcpy_memset_in_layers;
  }

  void not_attributed(const TraceEvent& a) {
    result_.unattributed_us += a.dur_us;
    ++result_.unattributed_activities;
  }

  static double overlap_us(std::vector<std::pair<double, double>> busy) {
    std::sort(busy.begin(), busy.end());
    double sum = 0, covered = 0, reach = -std::numeric_limits<double>::infinity();
    for (const auto& [begin, end] : busy) {
      sum += end - begin;
      if (end > reach) {
        covered += end - std::max(begin, reach);
        reach = end;
      }
    }
    return sum - covered;
  }

  LayerKind kind_of(const Unit& unit) const {
    if (unit.module_kind) return *unit.module_kind;
    // An op-level layer: the most specific kind among its ops (a conv's bias add is still a conv).
    static const std::array<LayerKind, 6> priority{LayerKind::conv, LayerKind::attention, LayerKind::linear,
                                                   LayerKind::norm, LayerKind::embedding, LayerKind::pooling};
    std::set<LayerKind> seen;
    for (const auto& op : unit.op_names)
      if (auto kind = kind_from_name(op)) seen.insert(*kind);
    for (LayerKind kind : priority)
      if (seen.count(kind)) return kind;
    return LayerKind::elementwise;
  }

  void collect_layers() {
    std::vector<Unit*> ran;
    for (auto& [key, unit] : units_)
      if (unit.totals.forward_activities + unit.totals.backward_activities > 0) ran.push_back(&unit);
    std::stable_sort(ran.begin(), ran.end(),
                     [](const Unit* a, const Unit* b) { return a->start_us < b->start_us; });
    std::map<std::string, int> seen;
    for (Unit* unit : ran) {
      TraceLayer layer = unit->totals;
      int repeat = ++seen[unit->name];
      layer.name = repeat == 1 ? unit->name : fmt::format("{}#{}", unit->name, repeat);
      layer.kind = kind_of(*unit);
      layer.takes_weights = unit->takes_weights;
      for (const auto& [call, params] : unit->params_by_call)  // a module called twice has its weights once
        layer.params_from_shapes = std::max(layer.params_from_shapes.value_or(0), params);
      result_.layers.push_back(std::move(layer));
    }
  }

  const Trace& trace_;
  const Nesting& nesting_;
  const std::vector<size_t>& launch_of_;
  StepWindow window_;
  bool module_calls_ = false;
  double first_backward_us_ = std::numeric_limits<double>::infinity();
  std::map<std::string, Unit> units_;
  std::map<int64_t, Unit*> layer_of_sequence_;
  StepAttribution result_;
};

// For each GPU activity, the host event that launched it: the runtime call with its correlation
// id, else the op named by its "External id"; kNoEvent when the trace has neither.
std::vector<size_t> find_launches(const Trace& trace) {
  std::map<int64_t, size_t> runtime_by_correlation, op_by_external_id;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.kind == EventKind::runtime && e.correlation) runtime_by_correlation.try_emplace(*e.correlation, i);
    if (e.kind == EventKind::cpu_op && e.external_id) op_by_external_id.try_emplace(*e.external_id, i);
  }
  std::vector<size_t> launch(trace.events.size(), kNoEvent);
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (!e.is_gpu_activity()) continue;
    if (auto it = e.correlation ? runtime_by_correlation.find(*e.correlation) : runtime_by_correlation.end();
        it != runtime_by_correlation.end())
      launch[i] = it->second;
    else if (auto op = e.external_id ? op_by_external_id.find(*e.external_id) : op_by_external_id.end();
             op != op_by_external_id.end())
      launch[i] = op->second;
  }
  return launch;
}

// ProfilerStep#N annotations by N (the last one when a step number repeats).
std::map<int, StepWindow> find_steps(const Trace& trace) {
  std::map<int, StepWindow> steps;
  for (const auto& e : trace.events) {
    if (!is_step_marker(e)) continue;
    std::string digits = e.name.substr(e.name.find('#') + 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    steps[std::stoi(digits)] = StepWindow{e.name, e.ts_us, e.end_us()};
  }
  return steps;
}

void check_one_gpu(const Trace& trace) {
  int kernels = 0;
  std::set<int64_t> devices;
  for (const auto& e : trace.events) {
    if (e.kind == EventKind::kernel && !is_nccl_kernel(e)) ++kernels;
    if (e.is_gpu_activity() && e.device) devices.insert(*e.device);
  }
  if (kernels == 0)
    throw InputError(trace.file, "traceEvents",
                     "no GPU kernels (events with cat \"kernel\"): record with "
                     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] on a GPU");
  if (devices.size() > 1)
    throw InputError(trace.file, "traceEvents",
                     fmt::format("GPU work on devices {}: expected the trace of one GPU (one rank's trace)",
                                 fmt::join(devices, ", ")));
}

bool is_complete(const StepAttribution& step) {
  int forward = 0, backward = 0;
  for (const auto& l : step.layers) {
    forward += l.forward_activities;
    backward += l.backward_activities;
  }
  return forward > 0 && backward > 0;
}

std::string step_names(const std::map<int, StepWindow>& steps) {
  std::vector<std::string> names;
  for (const auto& [number, window] : steps) names.push_back(window.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

double StepAttribution::forward_us() const {
  double total = 0;
  for (const auto& l : layers) total += l.forward_us;
  return total;
}

double StepAttribution::backward_us() const {
  double total = 0;
  for (const auto& l : layers) total += l.backward_us;
  return total;
}

StepAttribution attribute_step(const Trace& trace, std::optional<int> step_number) {
  check_one_gpu(trace);
  const Nesting nesting(trace);
  const std::vector<size_t> launches = find_launches(trace);
  auto attribute = [&](const StepWindow& w) { return StepClassifier(trace, nesting, launches, w).run(); };
  const std::string incomplete =
      "no forward and backward GPU work attributed to layers (a training step runs both)";

  std::map<int, StepWindow> steps = find_steps(trace);
  if (steps.empty()) {
    if (step_number)
      throw InputError(
          trace.file, "traceEvents",
          fmt::format("no ProfilerStep#{} (the trace has no ProfilerStep#N annotations)", *step_number));
    StepWindow whole{"the whole trace", std::numeric_limits<double>::infinity(), 0};
    for (const auto& e : trace.events) {
      whole.begin_us = std::min(whole.begin_us, e.ts_us);
      whole.end_us = std::max(whole.end_us, e.end_us());
    }
    StepAttribution result = attribute(whole);
    if (!is_complete(result))
      throw InputError(trace.file, "traceEvents",
                       "no complete training step: the trace (no ProfilerStep#N) has " + incomplete);
    return result;
  }
  if (step_number) {
    auto it = steps.find(*step_number);
    if (it == steps.end())
      throw InputError(trace.file, "traceEvents",
                       fmt::format("no ProfilerStep#{} (the trace has {})", *step_number, step_names(steps)));
    StepAttribution result = attribute(it->second);
    if (!is_complete(result))
      throw InputError(trace.file, "traceEvents",
                       fmt::format("{} is not a complete training step: {}", it->second.name, incomplete));
    return result;
  }
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    StepAttribution result = attribute(it->second);
    if (is_complete(result)) return result;
  }
  throw InputError(
      trace.file, "traceEvents",
      fmt::format("no complete training step among {}: each has {}", step_names(steps), incomplete));
}

}  // namespace dasim::workload::trace
