// Half-decade efficiency curves per precision and kernel class (see efficiency_fit.hpp).
#include "efficiency_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dasim::kernels {

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median_of: no values");
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

BinnedCurve binned_curve(const std::vector<FlopsFraction>& points, double max_fraction) {
  std::map<double, std::vector<FlopsFraction>> bins;  // floor(2 log10 FLOPs) -> its points
  for (const auto& p : points) bins[std::floor(std::log10(p.flops) * 2)].push_back(p);
  std::vector<std::vector<FlopsFraction>> groups;
  for (auto& [bin, group] : bins) groups.push_back(std::move(group));
  std::vector<double> distinct;
  for (const auto& p : points) distinct.push_back(p.flops);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (groups.size() == 1 && distinct.size() > 1) {
    // One half decade: the lower and upper halves of the distinct FLOPs keep the curve's slope.
    double split = distinct[(distinct.size() + 1) / 2];
    groups.assign(2, {});
    for (const auto& p : points) groups[p.flops < split ? 0 : 1].push_back(p);
  }
  BinnedCurve out;
  for (const auto& group : groups) {
    std::vector<double> flops, fractions;
    for (const auto& p : group) {
      flops.push_back(p.flops);
      fractions.push_back(p.fraction);
    }
    double fraction = median_of(fractions);
    if (fraction > max_fraction) {
      fraction = max_fraction;
      ++out.clamped;
    }
    out.curve.push_back({median_of(flops), fraction});
  }
  return out;
}

double gemm_element_bytes(const std::string& precision) {
  return precision == "fp16" || precision == "bf16" ? 2.0 : 4.0;
}

bool gemm_is_compute_bound(double m, double n, double k, double element_bytes, double flops_s,
                           double memory_bandwidth_Bps) {
  double moved = element_bytes * (m * k + k * n + m * n);
  return 2 * m * n * k / moved >= flops_s / memory_bandwidth_Bps;
}

std::string conv_kernel_class(const workload::ConvShape& s, const std::string& measurement_kind) {
  std::string pass;
  if (measurement_kind == "conv_fwd") pass = "forward";
  if (measurement_kind == "conv_bwd_data") pass = "backward_data";
  if (measurement_kind == "conv_bwd_filter") pass = "backward_filter";
  if (pass.empty()) throw std::invalid_argument("conv_kernel_class: not a conv pass: " + measurement_kind);
  return workload::conv_kernel_family(s) + "." + pass;
}

namespace {

struct PrecisionTally {
  std::map<std::string, std::vector<FlopsFraction>> points;  // class -> points
  int gemms = 0, memory_bound_gemms = 0;
};

// The sources text of one precision: what each class's curve was fitted from.
std::string describe(const std::string& precision, const PrecisionTally& tally,
                     const std::map<std::string, BinnedCurve>& fitted, double ridge) {
  std::string text = fmt::format(
      "fraction of fitted.flops.{} against FLOPs per call, one point per half decade (median FLOPs, median "
      "fraction); GEMMs only where 2 m n k / bytes of A, B, C >= {:.4g} FLOP/B (flops / memory bandwidth): "
      "{} "
      "of {} compute-bound",
      precision, ridge, tally.gemms - tally.memory_bound_gemms, tally.gemms);
  for (const auto& kernel_class : calibration::kernel_classes()) {
    auto it = fitted.find(kernel_class);
    if (it == fitted.end()) continue;
    text += fmt::format("; {}: {} kernels, {} points", kernel_class, tally.points.at(kernel_class).size(),
                        it->second.curve.size());
    if (it->second.clamped > 0)
      text += fmt::format(", {} clamped to {}", it->second.clamped,
                          kernel_class == "gemm" ? 1.0 : calibration::kMaxConvFraction);
  }
  return text;
}

}  // namespace

CurveFit fit_efficiency_curves(const std::vector<Measurement>& measurements,
                               const std::map<std::string, double>& flops, double memory_bandwidth_Bps) {
  std::map<std::string, PrecisionTally> tallies;
  std::map<std::string, int> without_rate;  // precision -> kernels with no fitted.flops to compare with
  for (const auto& m : measurements) {
    if (m.kernel_class.empty() || m.flops <= 0 || m.stats.median_s <= 0) continue;
    auto rate = flops.find(m.precision);
    if (rate == flops.end() || rate->second <= 0) {
      ++without_rate[m.precision];
      continue;
    }
    PrecisionTally& tally = tallies[m.precision];
    if (m.kernel_class == "gemm") {
      double gm = m.params.value("m", 0.0), gn = m.params.value("n", 0.0), gk = m.params.value("k", 0.0);
      if (gm <= 0 || gn <= 0 || gk <= 0) continue;  // no shape: cannot tell whether compute-bound
      ++tally.gemms;
      if (!gemm_is_compute_bound(gm, gn, gk, gemm_element_bytes(m.precision), rate->second,
                                 memory_bandwidth_Bps)) {
        ++tally.memory_bound_gemms;
        continue;
      }
    }
    tally.points[m.kernel_class].push_back({m.flops, m.flops_s() / rate->second});
  }
  CurveFit out;
  for (const auto& [precision, tally] : tallies) {
    std::map<std::string, BinnedCurve> fitted;
    for (const auto& [kernel_class, points] : tally.points) {
      double limit = kernel_class == "gemm" ? 1.0 : calibration::kMaxConvFraction;
      fitted[kernel_class] = binned_curve(points, limit);
      out.curves[precision][kernel_class] = fitted[kernel_class].curve;
    }
    if (fitted.empty()) {
      out.sources["fitted.efficiency_curves." + precision] =
          fmt::format("none: all {} {} GEMMs memory-bound (below {:.4g} FLOP/B)", tally.gemms, precision,
                      flops.at(precision) / memory_bandwidth_Bps);
      continue;
    }
    out.sources["fitted.efficiency_curves." + precision] =
        describe(precision, tally, fitted, flops.at(precision) / memory_bandwidth_Bps);
  }
  for (const auto& [precision, count] : without_rate)
    out.sources["fitted.efficiency_curves." + precision] =
        fmt::format("none: {} {} kernels measured but no {} GEMM rate (fitted.flops.{}) to compare them with",
                    count, precision, precision, precision);
  return out;
}

}  // namespace dasim::kernels
