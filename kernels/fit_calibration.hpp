// Derives the "fitted" block of a calibration file from the raw measurements:
//   flops[precision]    best achieved GEMM rate of that precision (the large sizes reach it);
//   efficiency_curves   [precision][kernel class]: fraction of flops[precision] against FLOPs per
//                       call, half-decade medians of the compute-bound GEMMs and of each conv
//                       class and pass (efficiency_fit.hpp: the published-data converter's rule);
//   gemm_efficiency     [FLOPs per call, achieved / flops.fp32] for every fp32 GEMM, sorted, and
//   conv_efficiency     the same for every fp32 conv pass, both capped at 1: the generic curves a
//                       file without a class curve falls back to;
//   memory_bandwidth_Bps  the best bandwidth of the memory-bound kernels (triad, elementwise, SGD);
//   launch_overhead_s   the median time of the minimal kernel / call;
//   compute_slowdown_under_collective  t_with / t_alone - 1 of a large GEMM timed alone and while
//                       an NCCL allreduce runs on the same GPU, clamped to [0, 0.99] (fp16 when
//                       measured, else fp32); 0 without those measurements.
// The compute model interpolates the efficiency curves for shapes it has no per-shape time for.
#pragma once

#include "measurement.hpp"

#include "calibration/calibration.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dasim::kernels {

struct FitResult {
  calibration::Fitted fitted;
  std::map<std::string, std::string> sources;  // "fitted.efficiency_curves.fp16" -> what went in
};

// Throws RuntimeFailure when a required ingredient (an fp32 GEMM, a bandwidth kernel, a launch
// measurement) is missing.
FitResult fit_measurements(const std::vector<Measurement>& measurements);
calibration::Fitted fit_calibration(const std::vector<Measurement>& measurements);

// t_with / t_alone - 1, clamped to [0, 0.99] (the loader takes fractions in [0, 1)).
double collective_slowdown(double t_alone_s, double t_with_s);

// The interference pair (kinds interference_gemm_alone and interference_gemm_with_allreduce of
// one precision) the fitted slowdown comes from: fp16 when both were measured, else fp32.
struct SlowdownFit {
  std::string precision;
  double alone_s = 0, with_s = 0;
  double slowdown = 0;  // clamped
};
std::optional<SlowdownFit> fit_collective_slowdown(const std::vector<Measurement>& measurements);

}  // namespace dasim::kernels
