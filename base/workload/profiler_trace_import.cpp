// Building a workload from an attributed trace step (see profiler_trace_import.hpp).
#include "workload/profiler_trace_import.hpp"

#include "common/errors.hpp"
#include "workload/profiler_trace.hpp"
#include "workload/profiler_trace_params.hpp"
#include "workload/workload_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace dasim::workload {
namespace {

constexpr double kSecondsPerUs = 1e-6;

std::vector<int64_t> layer_params(const trace::StepAttribution& step, const TraceImportOptions& options) {
  std::vector<std::string> names;
  std::vector<bool> takes_weights;
  for (const auto& l : step.layers) {
    names.push_back(l.name);
    takes_weights.push_back(l.takes_weights);
  }
  if (!options.params_file.empty())
    return trace::assign_param_groups(trace::load_param_file(options.params_file), names, takes_weights,
                                      options.params_file);
  std::vector<int64_t> params;
  for (const auto& l : step.layers) params.push_back(l.params_from_shapes.value_or(0));
  if (std::all_of(params.begin(), params.end(), [](int64_t p) { return p == 0; }))
    throw InputError(
        options.trace_file, "traceEvents",
        "no parameter sizes: no conv / linear / norm / embedding op of the step recorded \"Input Dims\" "
        "(profile with record_shapes=True, or give --params FILE)");
  return params;
}

std::string trace_stem(const std::string& file) {
  std::string stem = std::filesystem::path(file).filename().string();
  for (const char* suffix : {".json", ".pt.trace"})
    if (stem.size() > std::string(suffix).size() && stem.ends_with(suffix))
      stem.resize(stem.size() - std::string(suffix).size());
  return stem;
}

double ms(double us) {
  return us / 1000;
}

}  // namespace

TraceImport import_profiler_trace(const TraceImportOptions& options) {
  if (options.batch <= 0 || options.batch > 1'000'000'000)
    throw InputError("--batch", "", "expected the samples per GPU of the traced step (1 to 1e9)");
  trace::Trace parsed = trace::load_trace(options.trace_file);
  TraceImport imported;
  imported.step = trace::attribute_step(parsed, options.step);
  std::vector<int64_t> params = layer_params(imported.step, options);
  imported.params_from = options.params_file.empty() ? "recorded shapes" : options.params_file;

  Workload& w = imported.workload;
  w.name = options.name.empty() ? trace_stem(options.trace_file) : options.name;
  w.precision = options.precision;
  w.measured_batch = options.batch;
  w.update_time_s = imported.step.outside_layers_us() * kSecondsPerUs;
  for (size_t i = 0; i < imported.step.layers.size(); ++i) {
    const auto& l = imported.step.layers[i];
    Layer layer;
    layer.name = l.name;
    layer.kind = l.kind;
    layer.params = params[i];
    layer.forward_time_s = l.forward_us * kSecondsPerUs;
    layer.backward_time_s = l.backward_us * kSecondsPerUs;
    layer.measured_batch = options.batch;
    w.layers.push_back(std::move(layer));
  }
  w.origin = options.trace_file;
  imported.source = fmt::format(
      "imported by dasim workload import from {} ({}, batch {}): layer times are the sums of their GPU "
      "kernel "
      "durations; update_time_s is the step's GPU time outside the layers; parameters from {}",
      options.trace_file, imported.step.step, options.batch, imported.params_from);
  return imported;
}

nlohmann::json imported_workload_json(const TraceImport& imported) {
  nlohmann::json out = to_json(imported.workload);
  out["source"] = imported.source;
  return out;
}

std::string render_import_summary(const TraceImport& imported, const std::string& out_file) {
  const auto& s = imported.step;
  std::string streams = s.streams.empty() ? "none" : fmt::format("{}", fmt::join(s.streams, ", "));
  std::string text =
      fmt::format("{}: {} ({}) -> {}\n", imported.workload.origin, s.step,
                  s.module_calls ? "layers are nn.Module calls" : "layers are top-level ops", out_file);
  text += fmt::format("  layers            {} ({} parameters, from {})\n", s.layers.size(),
                      imported.workload.total_params(), imported.params_from);
  text += fmt::format("  batch             {}\n", imported.workload.measured_batch);
  text += fmt::format("  forward           {:.3f} ms\n", ms(s.forward_us()));
  text += fmt::format("  backward          {:.3f} ms\n", ms(s.backward_us()));
  text += fmt::format("  optimizer         {:.3f} ms ({} GPU activities)\n", ms(s.optimizer_us),
                      s.optimizer_activities);
  text +=
      fmt::format("  host copies       {:.3f} ms ({} memcpy HtoD/DtoH)\n", ms(s.host_copy_us), s.host_copies);
  text += fmt::format("  not attributed    {:.3f} ms ({} GPU activities)\n", ms(s.unattributed_us),
                      s.unattributed_activities);
  text += fmt::format("  update_time_s     {:.3f} ms (optimizer + host copies + not attributed)\n",
                      ms(s.outside_layers_us()));
  text += fmt::format("  NCCL dropped      {} kernels\n", s.nccl_kernels_dropped);
  text += fmt::format("  streams           {} (overlap {:.3f} ms, counted in full in each layer's sum)\n",
                      streams, ms(s.stream_overlap_us));
  return text;
}

}  // namespace dasim::workload
