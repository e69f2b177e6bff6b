#include "calibration/gpu_spread.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace dasim::calibration {

namespace {
// A GPU 100 times slower than the median is broken, not slow; the bound keeps times finite.
constexpr double kMostRelativeTime = 100;
}  // namespace

GpuSpread gpu_spread_from_json(const nlohmann::json& root, const std::string& file) {
  ObjectReader top(root, file, "");
  const std::string format = top.string("format");
  if (format != kGpuSpreadFormat)
    top.fail("format", fmt::format("expected \"{}\", got \"{}\"", kGpuSpreadFormat, format));
  GpuSpread spread;
  spread.gpu = top.string("gpu");
  spread.metric = top.string("metric");
  spread.gpus_measured = top.positive_integer("gpus_measured");
  top.array("relative_time_quantiles", [&](const nlohmann::json& v, const std::string& path) {
    const double t = v.is_number() ? v.get<double>() : 0;
    if (!(t > 0) || !(t <= kMostRelativeTime))
      throw InputError(
          file, path,
          fmt::format("expected a relative time in (0, {}] (this GPU's time over the median GPU's)",
                      kMostRelativeTime));
    if (!spread.relative_time.empty() && t < spread.relative_time.back())
      throw InputError(file, path,
                       fmt::format("expected quantiles in nondecreasing order, got {} after {}", t,
                                   spread.relative_time.back()));
    spread.relative_time.push_back(t);
  });
  if (spread.relative_time.size() < 2)
    top.fail("relative_time_quantiles",
             "expected at least 2 quantiles (the fastest and the slowest GPU, evenly spaced in between)");
  // The job's one GPU is the median GPU: a file timed against anything else would slow (or speed)
  // every job, the baseline alike, and say nothing about the spread.
  const double median = relative_time_at(spread, 0.5);
  if (std::abs(median - 1) > 0.01)
    top.fail(
        "relative_time_quantiles",
        fmt::format("expected times over the median GPU's (1 at the middle quantile), got {} there", median));
  top.finish();
  return spread;
}

GpuSpread load_gpu_spread_file(const std::string& file) {
  return gpu_spread_from_json(load_json_file(file), file);
}

double relative_time_at(const GpuSpread& spread, double p) {
  const auto& q = spread.relative_time;
  const double at = std::clamp(p, 0.0, 1.0) * static_cast<double>(q.size() - 1);
  const size_t below = std::min(static_cast<size_t>(at), q.size() - 2);
  const double frac = at - static_cast<double>(below);
  return q[below] + (q[below + 1] - q[below]) * frac;
}

std::vector<double> gpu_time_factors(const GpuSpread& spread, int gpus, uint64_t seed) {
  std::vector<double> factors(static_cast<size_t>(gpus));
  for (int i = 0; i < gpus; ++i) factors[i] = relative_time_at(spread, (i + 0.5) / gpus);
  // Fisher-Yates with the standard's mt19937_64 (its output is fixed by the standard, unlike
  // std::shuffle's use of it), so every build hands the same GPU to the same rank.
  std::mt19937_64 rng(seed);
  for (size_t i = factors.size(); i > 1; --i) std::swap(factors[i - 1], factors[rng() % i]);
  return factors;
}

}  // namespace dasim::calibration
