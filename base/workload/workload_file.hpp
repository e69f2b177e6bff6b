// Workloads from a name or a file: the built-in models by name, or a user's / the executor's
// per-layer JSON (docs/workloads.md):
//   {"name": "mlp-4x1024", "precision": "fp32", "measured_batch": 64, "sample_name": "sample",
//    "layers": [{"name": "fc1", "kind": "linear", "params": 1049600, "forward_flops": 2.1e6,
//                "backward_flops": 4.2e6, "activation_bytes": 8192,
//                "forward_time_s": 0.0012, "backward_time_s": 0.0025}]}
// FLOPs and bytes are per sample; times are for measured_batch samples (required when any layer
// has times). Each layer needs its forward and backward FLOPs, or its forward and backward times,
// or both. Optional per-layer "conv" / "gemm" objects give the shape for per-shape calibration.
#pragma once

#include "workload/fusion.hpp"
#include "workload/length_bins.hpp"
#include "workload/memory_format.hpp"
#include "workload/workload.hpp"

#include "common/errors.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace dasim::workload {

struct WorkloadOptions {
  std::optional<Precision> precision;       // overrides the model's / file's precision
  std::optional<int> sequence_length;       // built-in transformers only
  std::optional<Precision> grad_precision;  // a communication hook's gradient type (fp32|fp16|bf16)
  Fusion fusion = Fusion::none;
  MemoryFormat memory_format = MemoryFormat::channels_last;  // nchw: tensor-core convs transpose
  std::optional<Optimizer> optimizer;                        // overrides the file's (default sgd_momentum)
  std::optional<GradClip> grad_clip;                         // overrides the file's (default none)
  std::optional<ZeroGrad> zero_grad;                         // overrides the file's (default set_to_none)
  std::optional<ActivationCheckpointing> activation_checkpointing;  // overrides the file's (default none)
  std::optional<LengthBins> length_bins;  // built-in transformers only: micro-batches in length bins
};

// A sequence length the workload cannot take (an image model, a file, a built-in's position
// limit). Its message says what is wrong, not where it came from: the caller names that
// (`--seq-len` on the command line, `FILE: workloads[i].sequence_length` in a scenario).
class SequenceLengthError : public InputError {
 public:
  explicit SequenceLengthError(const std::string& what) : InputError(what) {}
};

// Activation checkpointing asked of a workload whose layers name no block: nothing to recompute.
// Its message says what; the caller names where (a scenario's workload, a command-line option).
class CheckpointingError : public InputError {
 public:
  explicit CheckpointingError(const std::string& what) : InputError(what) {}
};

// `spec_or_file`: a built-in name (builtin_workload_names()) or a path to a workload JSON file.
Workload load_workload(const std::string& spec_or_file, const WorkloadOptions& options = {});

// Parses a workload JSON value; `file` is used in error messages.
Workload parse_workload(const nlohmann::json& value, const std::string& file);

// The JSON form of a workload (the same format parse_workload reads).
nlohmann::json to_json(const Workload& workload);

}  // namespace dasim::workload
