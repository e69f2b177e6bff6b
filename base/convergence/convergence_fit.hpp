// Fitting the convergence model (convergence_model.hpp) to dasim-train runs:
//   1. S_min and B_noise from the sgd runs: S = S_min + (S_min B_noise) / B is linear in 1/B, fitted
//      by least squares on relative residuals (weights 1/S^2, so a run of 40 steps counts as much as
//      one of 4,000), with standard errors from the residuals and the delta method for B_noise;
//   2. each periodic schedule's coefficient c from its runs: S_obs / S(B) - 1 = c (p - 1)(1 - 1/W),
//      least squares through the origin.
// A parameter the runs cannot identify is refused (InputError, exit 2) with what runs would.
#pragma once

#include "convergence/convergence_model.hpp"
#include "convergence/training_run.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dasim::convergence {

struct RunCheck {
  std::string file;
  std::string schedule;  // schedules::describe()
  int ranks = 1;
  int batch_per_rank = 1;
  int steps_observed = 0;
  double steps_predicted = 0;  // NaN where the model has none (RunCheck::why_not)
  std::string why_not;
  double error() const { return steps_predicted / steps_observed - 1.0; }
};

struct ConvergenceFit {
  ConvergenceModel model;
  std::vector<RunCheck> fitted;  // the runs it was fitted on, each against the fitted model
};

ConvergenceFit fit_convergence(const std::vector<TrainingRun>& runs, double target_loss);
// Predicted against observed steps for runs the fit did not see.
std::vector<RunCheck> check_runs(const ConvergenceModel& model, const std::vector<TrainingRun>& runs);
// Median of |error| over the checks that have a prediction; NaN when none has.
double median_abs_error(const std::vector<RunCheck>& checks);
// The file's "fit" section: the target, each run's check, and the held-back runs' with their median.
nlohmann::ordered_json fit_report(const ConvergenceFit& fit, const std::vector<RunCheck>& held_back);

}  // namespace dasim::convergence
