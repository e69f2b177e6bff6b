#include "convergence/convergence_fit.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace dasim::convergence {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double global_batch(const TrainingRun& r) {
  return double(r.ranks) * double(schedules::samples_per_gpu_step(r.schedule, r.batch_per_rank));
}

// S = a + s x with x = 1/B, weights 1/S^2.
void fit_sgd_terms(const std::vector<const TrainingRun*>& sgd, ConvergenceModel& model) {
  if (sgd.empty())
    throw InputError(
        "fit-convergence: no sgd run among the runs: S_min and B_noise are fitted from sgd runs at two "
        "or more global batches");
  std::set<double> batches;
  for (const auto* r : sgd) batches.insert(global_batch(*r));
  if (batches.size() < 2)
    throw InputError(
        fmt::format("fit-convergence: every sgd run has global batch {}: S_min and B_noise need sgd runs "
                    "at two or more global batches (ranks x batch per rank)",
                    *batches.begin()));
  double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
  for (const auto* r : sgd) {
    const double x = 1.0 / global_batch(*r), y = r->steps, w = 1.0 / (y * y);
    sw += w, swx += w * x, swxx += w * x * x, swy += w * y, swxy += w * x * y;
  }
  const double det = sw * swxx - swx * swx;
  const double slope = (sw * swxy - swx * swy) / det;
  const double intercept = (swy - slope * swx) / sw;
  const double smallest = *batches.begin(), largest = *batches.rbegin();
  if (!(intercept > 0))
    throw InputError(
        fmt::format("fit-convergence: S_min cannot be identified: the sgd runs' steps keep falling as 1/B up "
                    "to B = {} (fitted "
                    "floor {:.4g} steps); add sgd runs at larger global batches",
                    largest, intercept));
  if (slope < 0)
    throw InputError(
        fmt::format("fit-convergence: B_noise cannot be identified: the sgd runs take more steps at larger "
                    "batches (B = {} to {}); "
                    "the run-to-run noise exceeds the batch effect: add runs over a wider range of batches",
                    smallest, largest));
  model.steps_min = intercept;
  model.batch_noise = slope / intercept;
  const size_t n = sgd.size();
  if (n > 2) {
    double rss = 0;
    for (const auto* r : sgd) {
      const double resid = r->steps - (intercept + slope / global_batch(*r));
      rss += resid * resid / (double(r->steps) * r->steps);
    }
    const double sigma2 = rss / double(n - 2);
    const double var_a = sigma2 * swxx / det, var_s = sigma2 * sw / det, cov = -sigma2 * swx / det;
    model.steps_min_stderr = std::sqrt(var_a);
    // B_noise = s / a: first-order propagation of both variances and their covariance.
    const double b = model.batch_noise;
    const double rel = (slope != 0 ? var_s / (slope * slope) - 2 * cov / (slope * intercept) : 0) +
                       var_a / (intercept * intercept);
    model.batch_noise_stderr =
        slope != 0 ? std::abs(b) * std::sqrt(std::max(0.0, rel)) : std::sqrt(var_s) / intercept;
    // A floor within two standard errors of 0 is not told apart from "no floor" by these runs.
    if (intercept < 2 * *model.steps_min_stderr)
      throw InputError(
          fmt::format("fit-convergence: S_min cannot be identified: {:.4g} +- {:.3g} steps is within two "
                      "standard errors of 0; "
                      "add sgd runs at larger global batches (largest now {})",
                      intercept, *model.steps_min_stderr, largest));
  }
}

// y = c x through the origin, x = (p - 1)(1 - 1/W), y = S_obs / S(B) - 1.
ScheduleTerm fit_schedule_term(const std::string& name, const std::vector<const TrainingRun*>& runs,
                               const ConvergenceModel& model) {
  // Each run's (x, y) once: the fit and its residuals use the same points.
  std::vector<std::pair<double, double>> points;
  double sxx = 0, sxy = 0;
  for (const auto* r : runs) {
    const double x = period_exposure(r->schedule, r->ranks);
    const double y = r->steps / sgd_steps(model, global_batch(*r)) - 1.0;
    points.emplace_back(x, y);
    sxx += x * x, sxy += x * y;
  }
  if (sxx == 0)
    throw InputError(
        fmt::format("fit-convergence: the {} term cannot be identified: every {} run has one worker or "
                    "averages every step, where it is synchronous SGD; add runs with 2 or more workers",
                    name, name));
  ScheduleTerm term;
  term.period_coefficient = sxy / sxx;
  if (schedules::is_diloco_family(runs.front()->schedule)) {
    term.outer = runs.front()->schedule.outer;
    for (const auto* r : runs)
      if (!same_outer_step(*term.outer, r->schedule.outer))
        throw InputError(
            r->file, "config.outer",
            fmt::format("{} runs with outer {} and {} cannot share one term: fit them apart", name,
                        describe_outer_step(*term.outer), describe_outer_step(r->schedule.outer)));
  }
  if (runs.size() > 1) {
    double rss = 0;
    for (const auto& [x, y] : points)
      rss += (y - term.period_coefficient * x) * (y - term.period_coefficient * x);
    term.period_coefficient_stderr = std::sqrt(rss / double(runs.size() - 1) / sxx);
  }
  return term;
}

nlohmann::ordered_json checks_json(const std::vector<RunCheck>& checks) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    nlohmann::ordered_json j;
    j["run"] = c.file;
    j["schedule"] = c.schedule;
    j["ranks"] = c.ranks;
    j["batch_per_rank"] = c.batch_per_rank;
    j["steps_observed"] = c.steps_observed;
    if (std::isnan(c.steps_predicted)) {
      j["steps_predicted"] = nullptr;
      j["why_not"] = c.why_not;
    } else {
      j["steps_predicted"] = std::stod(fmt::format("{:.6g}", c.steps_predicted));
      j["error_pct"] = std::stod(fmt::format("{:.4g}", 100 * c.error()));
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace

ConvergenceFit fit_convergence(const std::vector<TrainingRun>& runs, double target_loss) {
  ConvergenceFit fit;
  fit.model.target_loss = target_loss;
  std::vector<const TrainingRun*> sgd;
  std::map<std::string, std::vector<const TrainingRun*>> periodic;
  for (const auto& r : runs) {
    if (r.schedule.eager)
      throw InputError(r.file, "config.eager",
                       "the model has no term for eager outer steps: leave eager runs out");
    if (schedules::has_top_k(r.schedule))
      throw InputError(r.file, "config.top_k",
                       "the model has no term for top-k sparsification: leave top-k runs out");
    if (r.schedule.payload_bits != 32)
      throw InputError(
          r.file, "config.bits",
          "the model has no term for compressed payloads: leave the runs with bits below 32 out");
    if (r.schedule.kind == schedules::ScheduleKind::sgd)
      sgd.push_back(&r);
    else
      periodic[schedules::to_string(r.schedule.kind)].push_back(&r);
  }
  fit_sgd_terms(sgd, fit.model);
  for (const auto& [name, members] : periodic)
    fit.model.schedules[name] = fit_schedule_term(name, members, fit.model);
  fit.model.source = fmt::format("dasim fit-convergence: {} runs ({} sgd) to mean loss {}", runs.size(),
                                 sgd.size(), target_loss);
  fit.fitted = check_runs(fit.model, runs);
  return fit;
}

std::vector<RunCheck> check_runs(const ConvergenceModel& model, const std::vector<TrainingRun>& runs) {
  std::vector<RunCheck> checks;
  for (const auto& r : runs) {
    RunCheck c;
    c.file = std::filesystem::path(r.file).filename().string();  // not a path: the same bytes wherever run
    c.schedule = schedules::describe(r.schedule);
    c.ranks = r.ranks;
    c.batch_per_rank = r.batch_per_rank;
    c.steps_observed = r.steps;
    const auto predicted = predict_steps(
        model, r.schedule, r.ranks, double(schedules::samples_per_gpu_step(r.schedule, r.batch_per_rank)));
    c.steps_predicted = predicted.steps.value_or(kNaN);
    c.why_not = predicted.why_not;
    checks.push_back(c);
  }
  return checks;
}

double median_abs_error(const std::vector<RunCheck>& checks) {
  std::vector<double> errors;
  for (const auto& c : checks)
    if (!std::isnan(c.steps_predicted)) errors.push_back(std::abs(c.error()));
  if (errors.empty()) return kNaN;
  std::sort(errors.begin(), errors.end());
  const size_t m = errors.size() / 2;
  return errors.size() % 2 ? errors[m] : 0.5 * (errors[m - 1] + errors[m]);
}

nlohmann::ordered_json fit_report(const ConvergenceFit& fit, const std::vector<RunCheck>& held_back) {
  nlohmann::ordered_json report;
  report["runs"] = checks_json(fit.fitted);
  report["median_abs_error_pct"] = std::stod(fmt::format("{:.4g}", 100 * median_abs_error(fit.fitted)));
  if (!held_back.empty()) {
    report["held_back"] = checks_json(held_back);
    const double m = median_abs_error(held_back);
    report["held_back_median_abs_error_pct"] =
        std::isnan(m) ? nlohmann::ordered_json(nullptr)
                      : nlohmann::ordered_json(std::stod(fmt::format("{:.4g}", 100 * m)));
  }
  return report;
}

}  // namespace dasim::convergence
