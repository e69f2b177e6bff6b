// The fitted block of a calibration file (see fit_calibration.hpp).
#include "fit_calibration.hpp"

#include "common/errors.hpp"
#include "efficiency_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
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

double collective_slowdown(double t_alone_s, double t_with_s) {
  if (!(t_alone_s > 0)) return 0;
  return std::clamp(t_with_s / t_alone_s - 1, 0.0, 0.99);
}

std::optional<SlowdownFit> fit_collective_slowdown(const std::vector<Measurement>& measurements) {
  for (const char* precision : {"fp16", "fp32"}) {
    const Measurement *alone = nullptr, *with = nullptr;
    for (const auto& m : measurements) {
      if (m.precision != precision) continue;
      if (m.kind == "interference_gemm_alone" && !alone) alone = &m;
      if (m.kind == "interference_gemm_with_allreduce" && !with) with = &m;
    }
    if (alone && with && alone->stats.median_s > 0)
      return SlowdownFit{precision, alone->stats.median_s, with->stats.median_s,
                         collective_slowdown(alone->stats.median_s, with->stats.median_s)};
  }
  return std::nullopt;
}

FitResult fit_measurements(const std::vector<Measurement>& measurements) {
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
  FitResult out;
  calibration::Fitted& fitted = out.fitted;
  for (const auto& [precision, rate] : best_flops_s)
    if (rate > 0) fitted.flops[precision] = rate;
  fitted.gemm_efficiency = efficiency_curve(gemm_points, peak);
  fitted.conv_efficiency = efficiency_curve(conv_points, peak);
  fitted.memory_bandwidth_Bps = bandwidth_Bps;
  fitted.launch_overhead_s = launch_s;
  CurveFit curves = fit_efficiency_curves(measurements, fitted.flops, bandwidth_Bps);
  fitted.efficiency_curves = std::move(curves.curves);
  out.sources = std::move(curves.sources);
  if (auto slowdown = fit_collective_slowdown(measurements)) {
    fitted.compute_slowdown_under_collective = slowdown->slowdown;
    out.sources["fitted.compute_slowdown_under_collective"] = fmt::format(
        "{} GEMM (kind interference_gemm_*): median {:.6g} s alone, {:.6g} s while an NCCL allreduce ran on "
        "another stream of the same GPU: {:.6g} / {:.6g} - 1 = {:.4g}, clamped to [0, 0.99]",
        slowdown->precision, slowdown->alone_s, slowdown->with_s, slowdown->with_s, slowdown->alone_s,
        slowdown->with_s / slowdown->alone_s - 1);
  }
  return out;
}

calibration::Fitted fit_calibration(const std::vector<Measurement>& measurements) {
  return fit_measurements(measurements).fitted;
}

}  // namespace dasim::kernels
