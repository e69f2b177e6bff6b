// `dasim fit-convergence RUN.json... --target-loss L --out conv.json [--hold-out RUN.json...]`:
// fits the convergence model (base/convergence) to dasim-train runs, prints the parameters with
// their standard errors and each run's fitted against observed steps, checks the held-back runs
// the fit did not see, and writes the convergence file a scenario names (docs/time-to-accuracy.md).
#include "commands.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "convergence/convergence_file.hpp"
#include "convergence/convergence_fit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

namespace dasim::cli {

namespace {

struct FitConvergenceArgs {
  std::vector<std::string> runs;
  std::vector<std::string> held_back;
  double target_loss = 0;
  std::optional<int> window;
  std::string out;
};

std::string plus_minus(std::optional<double> stderr_value) {
  return stderr_value ? fmt::format(" +- {:.3g}", *stderr_value)
                      : " (no standard error: no residual degree of freedom)";
}

void print_checks(const std::string& title, const std::vector<convergence::RunCheck>& checks) {
  fmt::print("{}\n  {:<36} {:<20} {:>5} {:>6} {:>9} {:>10} {:>8}\n", title, "run", "schedule", "ranks",
             "batch", "observed", "predicted", "error");
  for (const auto& c : checks) {
    fmt::print("  {:<36} {:<20} {:>5} {:>6} {:>9}", c.file, c.schedule, c.ranks, c.batch_per_rank,
               c.steps_observed);
    if (std::isnan(c.steps_predicted))
      fmt::print(" {:>10} {}\n", "-", c.why_not);
    else
      fmt::print(" {:>10.1f} {:>+7.1f}%\n", c.steps_predicted, 100 * c.error());
  }
  const double median = convergence::median_abs_error(checks);
  if (!std::isnan(median)) fmt::print("  median |error| {:.1f}%\n", 100 * median);
}

std::vector<convergence::TrainingRun> load_runs(const std::vector<std::string>& files,
                                                const FitConvergenceArgs& a) {
  std::vector<convergence::TrainingRun> runs;
  for (const auto& f : files) runs.push_back(convergence::load_training_run(f, a.target_loss, a.window));
  return runs;
}

}  // namespace

void add_fit_convergence_command(CLI::App& app) {
  auto args = std::make_shared<FitConvergenceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fit-convergence", "Fit steps to a target loss vs global batch and schedule to dasim-train runs");
  cmd->add_option("RUN", args->runs, "dasim-train -o JSON files to fit on")->required();
  cmd->add_option("--target-loss", args->target_loss, "the target: mean training loss over the window")
      ->required();
  cmd->add_option("--window", args->window,
                  "steps the loss is averaged over (default: each run's own window)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--hold-out", args->held_back, "runs kept out of the fit and predicted with it");
  cmd->add_option("--out", args->out, "convergence file to write (dasim-convergence/1)")->required();
  cmd->callback([args] {
    if (!std::isfinite(args->target_loss))
      throw InputError(fmt::format("--target-loss: expected a finite loss, got {}", args->target_loss));
    const auto runs = load_runs(args->runs, *args);
    const auto held_back_runs = load_runs(args->held_back, *args);
    const auto fit = convergence::fit_convergence(runs, args->target_loss);
    const auto held_back = convergence::check_runs(fit.model, held_back_runs);
    const auto& m = fit.model;
    fmt::print(
        "S(B) = S_min (1 + B_noise / B) to mean loss {}:\n  S_min   = {:.4g}{}\n  B_noise = {:.4g}{} "
        "samples\n",
        args->target_loss, m.steps_min, plus_minus(m.steps_min_stderr), m.batch_noise,
        plus_minus(m.batch_noise_stderr));
    for (const auto& [name, term] : m.schedules)
      fmt::print("  {} factor 1 + c (p - 1)(1 - 1/W): c = {:.4g}{}\n", name, term.period_coefficient,
                 plus_minus(term.period_coefficient_stderr));
    print_checks("fitted runs:", fit.fitted);
    if (!held_back.empty()) print_checks("held-back runs (not in the fit):", held_back);
    auto file = convergence::to_json(m);
    file["fit"] = convergence::fit_report(fit, held_back);
    write_file_atomically(args->out, file.dump(2) + "\n");
    fmt::print("wrote {}\n", args->out);
  });
}

}  // namespace dasim::cli
