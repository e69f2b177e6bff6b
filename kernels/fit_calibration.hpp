// Derives the "fitted" block of a calibration file from the raw measurements:
//   flops[precision]    best achieved GEMM rate of that precision (the large sizes reach it);
//   gemm_efficiency     [FLOPs per call, achieved / flops.fp32] for every fp32 GEMM, sorted;
//   conv_efficiency     the same for every conv pass (forward, backward-data, backward-filter);
//   memory_bandwidth_Bps  the best bandwidth of the memory-bound kernels (triad, elementwise, SGD);
//   launch_overhead_s   the median time of the minimal kernel / call.
// The compute model interpolates the efficiency curves for shapes it has no per-shape time for.
#pragma once

#include "measurement.hpp"

#include "calibration/calibration.hpp"

#include <vector>

namespace dasim::kernels {

// Throws RuntimeFailure when a required ingredient (an fp32 GEMM, a bandwidth kernel, a launch
// measurement) is missing.
calibration::Fitted fit_calibration(const std::vector<Measurement>& measurements);

}  // namespace dasim::kernels
