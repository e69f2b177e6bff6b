// The fitted block of a calibration file (see fit_calibration.hpp).
#include "fit_calibration.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace dasim::kernels {
namespace {

std::vector<calibration::EfficiencyPoint> efficiency_curve(std::vector<std::pair<double, double>> points,
                                                           double peak_flops_s) {
  std::sort(points.begin(), points.end());
  std::vector<calibration::EfficiencyPoint> curve;
  // Efficiency can exceed the fp32 GEMM peak only by measurement noise (or a conv algorithm
  // cleverer than GEMM, e.g. Winograd on a GPU); the curve is capped at 1 by definition.
  // Kernels of equal FLOPs (e.g. a square GEMM and a workload shape) become one point, the mean
  // of their fractions: the curve is a function of FLOPs per call and must increase strictly.
  for (size_t i = 0; i < points.size();) {
    size_t j = i;
    double sum = 0;
    for (; j < points.size() && points[j].first == points[i].first; ++j)
      sum += std::min(1.0, points[j].second / peak_flops_s);
    curve.push_back({points[i].first, sum / static_cast<double>(j - i)});
    i = j;
  }
  return curve;
}

bool is_conv(const std::string& kind) {
  return kind.rfind("conv_", 0) == 0;
}
bool is_bandwidth(const std::string& kind) {
  return kind == "triad" || kind == "elementwise" || kind == "sgd_update";
}

}  // namespace

calibration::Fitted fit_calibration(const std::vector<Measurement>& measurements) {
  std::map<std::string, double> best_flops_s;
  double bandwidth_Bps = 0, launch_s = -1;
  for (const auto& m : measurements) {
    if (m.kind == "gemm") best_flops_s[m.precision] = std::max(best_flops_s[m.precision], m.flops_s());
    if (is_bandwidth(m.kind)) bandwidth_Bps = std::max(bandwidth_Bps, m.bandwidth_Bps());
    if (m.kind == "launch") launch_s = launch_s < 0 ? m.stats.median_s : std::min(launch_s, m.stats.median_s);
  }
  if (best_flops_s["fp32"] <= 0) throw RuntimeFailure("calibration: no fp32 GEMM was measured");
  if (bandwidth_Bps <= 0) throw RuntimeFailure("calibration: no memory-bandwidth kernel was measured");
  if (launch_s < 0) throw RuntimeFailure("calibration: no launch-overhead measurement");
  double peak = best_flops_s["fp32"];
  std::vector<std::pair<double, double>> gemm_points, conv_points;
  for (const auto& m : measurements) {
    if (m.precision != "fp32" || m.flops <= 0) continue;
    if (m.kind == "gemm") gemm_points.emplace_back(m.flops, m.flops_s());
    if (is_conv(m.kind)) conv_points.emplace_back(m.flops, m.flops_s());
  }
  calibration::Fitted fitted;
  for (const auto& [precision, rate] : best_flops_s)
    if (rate > 0) fitted.flops[precision] = rate;
  fitted.gemm_efficiency = efficiency_curve(gemm_points, peak);
  fitted.conv_efficiency = efficiency_curve(conv_points, peak);
  fitted.memory_bandwidth_Bps = bandwidth_Bps;
  fitted.launch_overhead_s = launch_s;
  return fitted;
}

}  // namespace dasim::kernels
