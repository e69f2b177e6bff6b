// Calibration of one device: what the compute model needs (achieved FLOP/s per precision,
// efficiency curves for small kernels, memory bandwidth, launch overhead), optional measured
// times of exact shapes, and where every number came from. Written by `dasim calibrate` /
// the kernel microbenchmarks (measured: true) or by hand from datasheets (measured: false).
// Format "dasim-calibration/1" (docs/workloads.md has the full description):
//   {"format", "device": {name, kind, driver?, toolkit?, cpu_model?}, "date", "command"?,
//    "measured", "efficiency_assumption" (datasheet files only),
//    "fitted": {"flops": {"fp32", "tf32"?, "fp16"?, "bf16"?}, "gemm_efficiency"?, "conv_efficiency"?,
//               "efficiency_curves"?: {PRECISION: {KERNEL_CLASS: [[flops_per_call, fraction]...]}},
//               "memory_bandwidth_Bps", "launch_overhead_s", "host_overhead_per_kernel_s"?,
//               "compute_slowdown_under_collective"?, "input_per_sample_s"?},
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

using EfficiencyCurve = std::vector<EfficiencyPoint>;  // sorted by flops_per_call

struct Fitted {
  std::map<std::string, double>
      flops;                        // achieved FLOP/s for large kernels: fp32 (required), tf32, fp16, bf16
  EfficiencyCurve gemm_efficiency;  // any precision; empty: 1.0 everywhere
  EfficiencyCurve conv_efficiency;
  // Measured curves per compute precision and kernel class (kernel_classes()), fraction of
  // flops[precision]. A convolution's fraction may exceed 1 (up to kMaxConvFraction): cuDNN's
  // Winograd and FFT algorithms do fewer multiplies than the direct-convolution FLOPs counted.
  std::map<std::string, std::map<std::string, EfficiencyCurve>> efficiency_curves;
  double memory_bandwidth_Bps = 0;
  double launch_overhead_s = 0;
  // CPU time the framework spends dispatching one kernel (Python op, autograd, launch call). The
  // host runs ahead of the GPU, so it only costs time where kernels are shorter than it.
  double host_overhead_per_kernel_s = 0;
  // Fraction by which compute slows down while a collective runs on the same GPU (NCCL kernels
  // take SMs and HBM bandwidth): overlapped compute takes (1 + f) times as long. 0: no interference.
  double compute_slowdown_under_collective = 0;
  double input_per_sample_s = 0;  // input pipeline time per sample the GPU waits for (0: hidden)
};

// Lavin & Gray (arXiv 1509.09308): Winograd reduces a 3x3 convolution's multiplies by up to 4x.
inline constexpr double kMaxConvFraction = 4.0;

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
// gemm, then conv_{1x1,3x3_s1,other}.{forward,backward_data,backward_filter}.
const std::vector<std::string>& kernel_classes();

// Strict loading: every error is an InputError `FILE: json.path: what`.
Calibration load_calibration(const std::string& file);
Calibration parse_calibration(const nlohmann::json& value, const std::string& file);

nlohmann::ordered_json to_json(const Calibration& calibration);
// Writes to_json() to `path` atomically (no half-written file on failure).
void save_calibration(const Calibration& calibration, const std::string& path);

// Log-linear interpolation of the curve at `flops_per_call` (linear in log(flops_per_call)),
// clamped to the first / last point; 1.0 for an empty curve.
double efficiency_at(const EfficiencyCurve& curve, double flops_per_call);

}  // namespace dasim::calibration
