// Relative-error least squares of time = alpha + bytes / beta, and the fit-links report.
#include "linkfit/alpha_beta_fit.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace dasim::linkfit {

AlphaBetaFit fit_alpha_beta(const std::vector<Sample>& samples, const std::string& file) {
  std::set<double> sizes;
  for (const auto& s : samples) sizes.insert(s.bytes);
  if (samples.size() < 2 || sizes.size() < 2)
    throw InputError(
        file, "",
        fmt::format("need at least 2 distinct message sizes to fit alpha and beta, got {}", sizes.size()));
  AlphaBetaFit fit;
  fit.min_bytes = *sizes.begin();
  fit.max_bytes = *sizes.rbegin();
  // x is scaled by the largest size so the normal equations stay well conditioned.
  const double scale = fit.max_bytes;
  double S = 0, Sx = 0, Sxx = 0, St = 0, Sxt = 0;
  for (const auto& s : samples) {
    double w = 1.0 / (s.time_s * s.time_s);
    double x = s.bytes / scale;
    S += w;
    Sx += w * x;
    Sxx += w * x * x;
    St += w * s.time_s;
    Sxt += w * x * s.time_s;
  }
  double det = S * Sxx - Sx * Sx;
  double alpha = (St * Sxx - Sx * Sxt) / det;
  double slope = (S * Sxt - Sx * St) / det;  // seconds per (scale bytes)
  if (slope <= 0) {
    // No measurable size dependence in this range: a pure latency.
    alpha = St / S;
    slope = 0;
  } else if (alpha < 0) {
    // Noise pushed the intercept below zero: a physical latency is >= 0, so fit the slope alone.
    alpha = 0;
    slope = Sxt / Sxx;
  }
  fit.alpha_s = alpha;
  if (slope > 0) fit.beta_Bps = scale / slope;
  double sum_sq = 0;
  for (const auto& s : samples) {
    double model = alpha + slope * (s.bytes / scale);
    double r = (s.time_s - model) / s.time_s;
    fit.relative_residuals.push_back(r);
    sum_sq += r * r;
  }
  fit.rms_relative_residual = std::sqrt(sum_sq / static_cast<double>(samples.size()));
  return fit;
}

namespace {

nlohmann::json fit_json(const AlphaBetaFit& fit, const std::vector<Sample>& samples) {
  nlohmann::json residuals = nlohmann::json::array();
  for (size_t i = 0; i < samples.size(); ++i)
    residuals.push_back({{"bytes", samples[i].bytes},
                         {"time_s", samples[i].time_s},
                         {"line", samples[i].line},
                         {"relative_residual", fit.relative_residuals[i]}});
  nlohmann::json out = {{"alpha_s", fit.alpha_s},
                        {"beta_Bps", fit.beta_Bps ? nlohmann::json(*fit.beta_Bps) : nlohmann::json(nullptr)},
                        {"min_bytes", fit.min_bytes},
                        {"max_bytes", fit.max_bytes},
                        {"points", samples.size()},
                        {"rms_relative_residual", fit.rms_relative_residual},
                        {"residuals", residuals}};
  return out;
}

size_t distinct_sizes(const std::vector<Sample>& samples) {
  std::set<double> sizes;
  for (const auto& s : samples) sizes.insert(s.bytes);
  return sizes.size();
}

}  // namespace

nlohmann::json fit_links_report(const ParsedLog& log, const std::string& file,
                                const LinkFitOptions& options) {
  std::vector<Sample> kept;
  for (const auto& s : log.samples)
    if ((!options.min_bytes || s.bytes >= *options.min_bytes) &&
        (!options.max_bytes || s.bytes <= *options.max_bytes))
      kept.push_back(s);
  if (distinct_sizes(kept) < 2 && (options.min_bytes || options.max_bytes))
    throw InputError(
        file, "",
        fmt::format("only {} distinct message sizes inside the --min-bytes/--max-bytes range, need 2",
                    distinct_sizes(kept)));
  std::vector<Sample> small, large;
  for (const auto& s : kept) {
    if (s.bytes <= options.small_max_bytes) small.push_back(s);
    if (s.bytes >= options.large_min_bytes) large.push_back(s);
  }
  AlphaBetaFit all = fit_alpha_beta(kept, file);
  nlohmann::json fits = {{"all", fit_json(all, kept)}};
  std::optional<AlphaBetaFit> small_fit, large_fit;
  if (distinct_sizes(small) >= 2) {
    small_fit = fit_alpha_beta(small, file);
    fits["small"] = fit_json(*small_fit, small);
  }
  if (distinct_sizes(large) >= 2) {
    large_fit = fit_alpha_beta(large, file);
    fits["large"] = fit_json(*large_fit, large);
  }
  double latency_s = small_fit ? small_fit->alpha_s : all.alpha_s;
  std::optional<double> beta = large_fit && large_fit->beta_Bps ? large_fit->beta_Bps : all.beta_Bps;
  if (!beta)
    throw InputError(file, "", "the times do not grow with message size: no bandwidth can be fitted");
  double bus_factor = log.bus_factor > 0 ? log.bus_factor : 1.0;
  nlohmann::json link = {{"bandwidth", *beta * bus_factor}, {"latency", latency_s}};
  return {{"format", "dasim-linkfit/1"},
          {"log", file},
          {"log_format", log.format},
          {"model", "time = alpha + bytes / beta, least squares on relative residuals"},
          {"bus_factor", log.bus_factor > 0 ? nlohmann::json(log.bus_factor) : nlohmann::json(nullptr)},
          {"small_max_bytes", options.small_max_bytes},
          {"large_min_bytes", options.large_min_bytes},
          {"fits", fits},
          {"link", link},
          {"note",
           "link.latency is alpha of the small-message range (end-to-end latency of the measured "
           "operation); link.bandwidth is beta of the large-message range times the bus factor "
           "(busbw/algbw) when the log gives one"}};
}

}  // namespace dasim::linkfit
