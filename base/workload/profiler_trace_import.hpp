// `dasim workload import`: a torch.profiler trace of one training step on one GPU -> a workload
// whose layers carry the measured GPU times (forward_time_s / backward_time_s for measured_batch
// samples) and whose update_time_s is the step's GPU time outside the layers (optimizer, batch
// copy, work no layer can claim). See docs/workloads.md, "Importing a torch.profiler trace".
#pragma once

#include "workload/precision.hpp"
#include "workload/profiler_trace_steps.hpp"
#include "workload/workload.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace dasim::workload {

struct TraceImportOptions {
  std::string trace_file;
  int batch = 0;            // samples per GPU in the traced step (the trace cannot say it reliably)
  std::optional<int> step;  // ProfilerStep#N; unset: the last complete step
  std::string params_file;  // side file of parameter shapes; empty: the trace's recorded shapes
  Precision precision = Precision::fp32;
  std::string name;  // empty: the trace file's stem
};

struct TraceImport {
  Workload workload;
  trace::StepAttribution step;
  std::string params_from;  // "recorded shapes" or the side file
  std::string source;       // what the workload file's "source" says
};

// Throws InputError (`FILE: json.path: what`) for any trace or side file it cannot use.
TraceImport import_profiler_trace(const TraceImportOptions& options);

// The workload file: to_json(workload) with its "source".
nlohmann::json imported_workload_json(const TraceImport& imported);

// The few lines `dasim workload import` prints.
std::string render_import_summary(const TraceImport& imported, const std::string& out_file);

}  // namespace dasim::workload
