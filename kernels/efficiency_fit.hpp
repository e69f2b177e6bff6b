// Efficiency curves of a calibration file from measured kernels, fitted by the rule of the
// published-data converter (analysis/dasim_analysis/deepbench.py: binned_curve, is_compute_bound),
// so a file from `dasim calibrate` and one from published kernel times mean the same thing:
//   fraction  = achieved FLOP/s / fitted.flops[precision], per precision and kernel class
//               (calibration::kernel_classes(): gemm, conv_{1x1,3x3_s1,other}.{forward,
//               backward_data,backward_filter}); a conv's FLOPs are the direct convolution's;
//   GEMMs     only compute-bound ones: 2 m n k / (element bytes x (m k + k n + m n)) reaches the
//             ridge point flops[precision] / memory_bandwidth_Bps (4 bytes for fp32 and tf32, 2 for
//             fp16 and bf16: the storage type);
//   points    one per half decade of FLOPs per call (floor(2 log10 FLOPs)): the median FLOPs and
//             the median fraction of its kernels; when every kernel falls in one half decade but
//             their FLOPs differ, the lower and upper halves of the distinct FLOPs values (the
//             upper half starts at distinct[(count + 1) / 2]) become two points;
//   clamp     GEMM fractions to 1, convolution fractions to calibration::kMaxConvFraction (4).
#pragma once

#include "measurement.hpp"

#include "calibration/calibration.hpp"
#include "workload/layer.hpp"

#include <map>
#include <string>
#include <vector>

namespace dasim::kernels {

struct FlopsFraction {
  double flops = 0;     // FLOPs per call
  double fraction = 0;  // achieved / large-kernel FLOP/s
};

struct BinnedCurve {
  calibration::EfficiencyCurve curve;
  int clamped = 0;  // points whose median fraction exceeded max_fraction
};

// The half-decade binning above. Points must have FLOPs > 0.
BinnedCurve binned_curve(const std::vector<FlopsFraction>& points, double max_fraction);

// Median as Python's statistics.median: the mean of the two middle values of an even count.
double median_of(std::vector<double> values);

// 4 for fp32 and tf32 (fp32 storage), 2 for fp16 and bf16.
double gemm_element_bytes(const std::string& precision);

bool gemm_is_compute_bound(double m, double n, double k, double element_bytes, double flops_s,
                           double memory_bandwidth_Bps);

// "conv_1x1" (1x1, groups 1), "conv_3x3_s1" (3x3, stride 1, groups 1) or "conv_other", as the
// compute model classifies a layer (sim/compute kernel_class()), then "." and the pass of the
// measurement kind: conv_fwd -> forward, conv_bwd_data -> backward_data, conv_bwd_filter ->
// backward_filter. Throws std::invalid_argument for another kind.
std::string conv_kernel_class(const workload::ConvShape& shape, const std::string& measurement_kind);

struct CurveFit {
  std::map<std::string, std::map<std::string, calibration::EfficiencyCurve>> curves;  // [precision][class]
  // "fitted.efficiency_curves.<precision>" -> what went in (kernels, points, clamped, GEMMs left
  // out as memory-bound); "note.*"-style remarks on measurements without a rate to compare with.
  std::map<std::string, std::string> sources;
};

// Curves from every measurement with a kernel_class and FLOPs (a gemm needs params m, n, k), for
// each precision with a rate in `flops`.
CurveFit fit_efficiency_curves(const std::vector<Measurement>& measurements,
                               const std::map<std::string, double>& flops, double memory_bandwidth_Bps);

}  // namespace dasim::kernels
