// Reading the Chrome-trace JSON that torch.profiler (Kineto's ChromeTraceLogger) exports:
//   {"schemaVersion": 1, "deviceProperties": [...], "traceEvents": [
//     {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1000, "tid": 1000,
//      "ts": 155.000, "dur": 70.000, "args": {"External id": 12, "Sequence number": 10,
//      "Fwd thread id": 0, "Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [16], ...]}},
//     {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", ..., "args": {"correlation": 2}},
//     {"ph": "X", "cat": "kernel", "name": "...", "pid": 0, "tid": 7, ...,
//      "args": {"device": 0, "stream": 7, "correlation": 2, "External id": 12}},
//     {"ph": "s", "cat": "ac2g", "id": 2, ...}, {"ph": "f", "cat": "ac2g", "id": 2, "bp": "e", ...}]}
// Only what the importer needs is kept: complete ("X") events of the host and GPU categories below
// (times in microseconds, as Kineto writes them) and the ac2g flow ends, which carry the
// correlation id of a GPU activity when its args do not. Other events (metadata, counters,
// instants) are skipped; the format is Kineto's, so unknown keys are not errors.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dasim::workload::trace {

enum class EventKind {
  cpu_op,           // an ATen op or record_function scope (older PyTorch writes steps as cpu_op too)
  user_annotation,  // record_function / ProfilerStep#N / Optimizer.step#X.step
  python_function,  // with_stack=True: Python frames, "nn.Module: Conv2d_0" for module calls
  runtime,          // cuda_runtime / cuda_driver: kernel launches, memcpy and memset calls
  kernel,
  memcpy,
  memset,
};

struct TraceEvent {
  size_t index = 0;  // position in traceEvents (for error paths)
  EventKind kind = EventKind::cpu_op;
  std::string name;
  std::string thread;  // "pid/tid" as written: host threads, or GPU device/stream for activities
  double ts_us = 0;
  double dur_us = 0;
  std::optional<int64_t> correlation;      // args.correlation (runtime calls and GPU activities)
  std::optional<int64_t> external_id;      // args["External id"]
  std::optional<int64_t> sequence_number;  // args["Sequence number"] (autograd node of the op)
  std::optional<int64_t> stream;           // args.stream (GPU activities)
  std::optional<int64_t> device;           // args.device (GPU activities)
  nlohmann::json input_dims;               // args["Input Dims"] (record_shapes=True), or null

  double end_us() const { return ts_us + dur_us; }
  bool is_gpu_activity() const {
    return kind == EventKind::kernel || kind == EventKind::memcpy || kind == EventKind::memset;
  }
};

struct Trace {
  std::string file;
  std::vector<TraceEvent> events;  // in file order
};

// Throws InputError `FILE: traceEvents[i].ts: what was expected` for a value it cannot read.
Trace parse_trace(const nlohmann::json& root, const std::string& file);

// Reads FILE (JSON) and parses it.
Trace load_trace(const std::string& file);

}  // namespace dasim::workload::trace
