// Calibration of one device: what the compute model needs (achieved FLOP/s per precision,
// efficiency curves for small kernels, memory bandwidth, launch overhead), optional measured
// times of exact shapes, and where every number came from. Written by `dasim calibrate` /
// the kernel microbenchmarks (measured: true) or by hand from datasheets (measured: false).
// Format "dasim-calibration/1" (docs/workloads.md has the full description):
//   {"format", "device": {name, kind, driver?, toolkit?, cpu_model?}, "date", "command"?,
//    "measured", "efficiency_assumption" (datasheet files only),
//    "fitted": {"flops": {"fp32", "tf32"?, "fp16"?, "bf16"?}, "gemm_efficiency"?, "conv_efficiency"?,
//               "memory_bandwidth_Bps", "launch_overhead_s"},
//    "per_shape"?: [{kind, key, batch, precision, time_s}], "measurements"?: [...], "sources"?: {...}}
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dasim::calibration {

inline constexpr const char* kFormat = "dasim-calibration/1";

struct Device {
  std::string name;
  std::string kind;                        // "cuda" or "cpu"
  std::string driver, toolkit, cpu_model;  // empty when not recorded
};

// Achieved fraction of the large-kernel FLOP/s for a kernel of `flops_per_call` FLOPs.
struct EfficiencyPoint {
  double flops_per_call = 0;
  double fraction = 1;
};

struct Fitted {
  std::map<std::string, double>
      flops;  // achieved FLOP/s for large kernels: fp32 (required), tf32, fp16, bf16
  std::vector<EfficiencyPoint> gemm_efficiency;  // sorted by flops_per_call; empty: 1.0 everywhere
  std::vector<EfficiencyPoint> conv_efficiency;
  double memory_bandwidth_Bps = 0;
  double launch_overhead_s = 0;
};

struct PerShape {
  std::string kind;  // conv_fwd | conv_bwd_data | conv_bwd_filter | gemm
  std::string key;   // workload/shape_key.hpp
  int batch = 0;
  std::string precision;  // fp32 | tf32 | fp16 | bf16
  double time_s = 0;
};

struct Calibration {
  Device device;
  std::string date;
  std::string command;
  bool measured = false;
  std::optional<double> efficiency_assumption;  // datasheet files: fraction of peak in `fitted`
  Fitted fitted;
  std::vector<PerShape> per_shape;
  nlohmann::json measurements = nlohmann::json::array();  // raw objects, kept as written
  std::map<std::string, std::string> sources;             // "flops.fp32" -> where it came from
};

const std::vector<std::string>& precision_names();  // fp32, tf32, fp16, bf16
const std::vector<std::string>& per_shape_kinds();

// Strict loading: every error is an InputError `FILE: json.path: what`.
Calibration load_calibration(const std::string& file);
Calibration parse_calibration(const nlohmann::json& value, const std::string& file);

nlohmann::ordered_json to_json(const Calibration& calibration);
// Writes to_json() to `path` atomically (no half-written file on failure).
void save_calibration(const Calibration& calibration, const std::string& path);

// Log-linear interpolation of the curve at `flops_per_call` (linear in log(flops_per_call)),
// clamped to the first / last point; 1.0 for an empty curve.
double efficiency_at(const std::vector<EfficiencyPoint>& curve, double flops_per_call);

}  // namespace dasim::calibration
