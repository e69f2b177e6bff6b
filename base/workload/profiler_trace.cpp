// Parsing a torch.profiler Chrome trace into typed events (see profiler_trace.hpp).
#include "workload/profiler_trace.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <utility>

namespace dasim::workload::trace {
namespace {

std::optional<EventKind> kind_of_category(const std::string& cat) {
  if (cat == "cpu_op") return EventKind::cpu_op;
  if (cat == "user_annotation") return EventKind::user_annotation;
  if (cat == "python_function") return EventKind::python_function;
  if (cat == "cuda_runtime" || cat == "cuda_driver") return EventKind::runtime;
  if (cat == "kernel") return EventKind::kernel;
  if (cat == "gpu_memcpy") return EventKind::memcpy;
  if (cat == "gpu_memset") return EventKind::memset;
  return std::nullopt;  // gpu_user_annotation, Trace spans, overhead, ...: not needed
}

// pid and tid are integers for real threads and devices, strings for Kineto's synthetic rows.
std::string id_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

double microseconds(const nlohmann::json& event, const char* key, const std::string& file,
                    const std::string& path) {
  auto it = event.find(key);
  if (it == event.end() || !it->is_number())
    throw InputError(file, path + "." + key, "expected a number (microseconds)");
  double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) throw InputError(file, path + "." + key, "expected microseconds >= 0");
  return v;
}

std::optional<int64_t> optional_arg(const nlohmann::json& args, const char* key, const std::string& file,
                                    const std::string& path) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::nullopt;
  return json_integer(*it, file, path + ".args." + key);
}

TraceEvent read_complete_event(const nlohmann::json& e, EventKind kind, size_t index,
                               const std::string& file) {
  const std::string path = fmt::format("traceEvents[{}]", index);
  TraceEvent ev;
  ev.index = index;
  ev.kind = kind;
  auto name = e.find("name");
  if (name == e.end() || !name->is_string()) throw InputError(file, path + ".name", "expected a string");
  ev.name = name->get<std::string>();
  ev.thread = id_text(e.value("pid", nlohmann::json())) + "/" + id_text(e.value("tid", nlohmann::json()));
  ev.ts_us = microseconds(e, "ts", file, path);
  ev.dur_us = microseconds(e, "dur", file, path);
  auto args = e.find("args");
  if (args == e.end()) return ev;
  if (!args->is_object()) throw InputError(file, path + ".args", "expected an object");
  ev.correlation = optional_arg(*args, "correlation", file, path);
  ev.external_id = optional_arg(*args, "External id", file, path);
  ev.sequence_number = optional_arg(*args, "Sequence number", file, path);
  ev.stream = optional_arg(*args, "stream", file, path);
  ev.device = optional_arg(*args, "device", file, path);
  if (auto dims = args->find("Input Dims"); dims != args->end()) ev.input_dims = *dims;
  return ev;
}

// A GPU activity's correlation id from the ac2g flow that ends on it ("f", bound to the
// enclosing slice: same device row, same start), for traces whose activities lack args.correlation.
void correlate_by_flows(Trace& trace, const std::map<std::pair<std::string, double>, int64_t>& flow_ends) {
  for (auto& ev : trace.events) {
    if (!ev.is_gpu_activity() || ev.correlation) continue;
    auto it = flow_ends.find({ev.thread, ev.ts_us});
    if (it != flow_ends.end()) ev.correlation = it->second;
  }
}

}  // namespace

Trace parse_trace(const nlohmann::json& root, const std::string& file) {
  if (!root.is_object())
    throw InputError(file, "",
                     fmt::format("expected a JSON object with traceEvents (a torch.profiler "
                                 "Chrome trace), got {}",
                                 json_type_name(root)));
  auto events = root.find("traceEvents");
  if (events == root.end())
    throw InputError(
        file, "traceEvents",
        "required key is missing (expected a Chrome trace from torch.profiler's export_chrome_trace)");
  if (!events->is_array()) throw InputError(file, "traceEvents", "expected an array of events");

  Trace trace;
  trace.file = file;
  std::map<std::pair<std::string, double>, int64_t> flow_ends;
  for (size_t i = 0; i < events->size(); ++i) {
    const auto& e = (*events)[i];
    const std::string path = fmt::format("traceEvents[{}]", i);
    if (!e.is_object()) throw InputError(file, path, "expected an object");
    const std::string ph = e.value("ph", std::string());
    const std::string cat = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : "";
    if (ph == "f" && cat == "ac2g") {
      auto id = e.find("id");
      if (id == e.end()) throw InputError(file, path + ".id", "expected the flow's correlation id");
      std::string thread =
          id_text(e.value("pid", nlohmann::json())) + "/" + id_text(e.value("tid", nlohmann::json()));
      flow_ends[{thread, microseconds(e, "ts", file, path)}] = json_integer(*id, file, path + ".id");
      continue;
    }
    if (ph != "X") continue;
    if (auto kind = kind_of_category(cat)) trace.events.push_back(read_complete_event(e, *kind, i, file));
  }
  correlate_by_flows(trace, flow_ends);
  return trace;
}

Trace load_trace(const std::string& file) {
  return parse_trace(load_json_file(file), file);
}

}  // namespace dasim::workload::trace
