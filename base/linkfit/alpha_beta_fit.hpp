// Least-squares fit of the alpha-beta model time = alpha + bytes / beta to measured samples.
// The fit minimises relative residuals ((t_i - model_i) / t_i), not absolute ones: message sizes
// span six or more decades, and an absolute fit would let the largest message decide everything
// and leave alpha undetermined. The model is linear in (alpha, 1/beta), so this is a 2x2 weighted
// normal-equation solve with weights 1/t_i^2.
#pragma once

#include "linkfit/log_parser.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dasim::linkfit {

struct AlphaBetaFit {
  double alpha_s = 0;
  // Bytes per second; nullopt when the range shows no size dependence (slope <= 0), e.g. a
  // latency-only range of tiny messages: then alpha is the mean time.
  std::optional<double> beta_Bps;
  double min_bytes = 0, max_bytes = 0;
  std::vector<double> relative_residuals;  // (measured - model) / measured, per sample in order
  double rms_relative_residual = 0;
};

// Throws InputError (naming `file`) when fewer than 2 samples or fewer than 2 distinct sizes are given.
AlphaBetaFit fit_alpha_beta(const std::vector<Sample>& samples, const std::string& file = "");

struct LinkFitOptions {
  std::optional<double> min_bytes, max_bytes;  // keep samples with min <= bytes <= max
  double small_max_bytes = 64.0 * 1024;        // the latency-dominated range: bytes <= this
  double large_min_bytes = 1024.0 * 1024;      // the bandwidth-dominated range: bytes >= this
};

// Fits "all", "small" and "large" ranges (a range with < 2 distinct sizes is left out) and the
// link figures {"bandwidth", "latency"} a platform file can use: latency from the small range,
// bandwidth from the large range (each falls back to "all"), bandwidth scaled by the bus factor
// when the log gives one. Residuals are listed per sample.
nlohmann::json fit_links_report(const ParsedLog& log, const std::string& file, const LinkFitOptions& options);

}  // namespace dasim::linkfit
