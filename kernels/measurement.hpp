// One microbenchmark result as it is stored in a calibration file's "measurements" array, plus
// the per-shape times the compute model looks up. Both the CPU and the CUDA suites fill these.
#pragma once

#include "stats.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dasim::kernels {

struct Measurement {
  std::string name;  // unique within a file, e.g. "sgemm_m1024_n1024_k1024"
  std::string
      kind;  // gemm | conv_fwd | conv_bwd_data | conv_bwd_filter | triad | launch | allreduce | memcpy |
             // bn_relu_fused | bn_relu_unfused | interference_gemm_alone | ... (docs/calibration.md)
  nlohmann::json params = nlohmann::json::object();
  Stats stats;
  double flops = 0;  // FLOPs per call (multiply-add = 2); 0 when not a compute kernel
  double bytes = 0;  // bytes moved per call; 0 when not a memory / comm benchmark
  std::string precision = "fp32";
  // GEMM-like kernels: the compute model's kernel class (calibration::kernel_classes(): "gemm",
  // "conv_3x3_s1.forward", ...), which efficiency curve the measurement feeds; empty otherwise.
  std::string kernel_class;

  double flops_s() const { return flops > 0 ? flops / stats.median_s : 0; }
  double bandwidth_Bps() const { return bytes > 0 ? bytes / stats.median_s : 0; }
};

// One conv / gemm shape timed at a given batch: the calibration file's "per_shape" entry.
struct ShapeTime {
  std::string kind;  // conv_fwd | conv_bwd_data | conv_bwd_filter | gemm
  std::string key;   // workload::conv_shape_key / gemm_shape_key
  int batch = 0;
  std::string precision = "fp32";
  double time_s = 0;
};

nlohmann::json to_json(const Measurement& m);
nlohmann::json to_json(const ShapeTime& s);

}  // namespace dasim::kernels
