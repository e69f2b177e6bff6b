// Steps to a target loss, the convergence side of time to accuracy (docs/time-to-accuracy.md).
//
// Synchronous SGD at global batch B (samples per step over all workers) needs
//     S(B) = S_min (1 + B_noise / B)
// steps: S_min is the fewest steps any batch can take, B_noise the batch at which it takes twice
// that. McCandlish et al. 2018 (arXiv 1812.06162, section 2) relate steps and samples E = B S as
// (S / S_min - 1)(E / E_min - 1) = 1, which is this S(B) with B_noise = E_min / S_min (their
// B_crit, which they show the gradient noise scale approximates).
// A periodic-averaging schedule (local_sgd, dasgd, the DiLoCo family) takes a factor more steps at
// the same global batch:
//     factor = 1 + c_schedule (p - 1) (1 - 1 / W)
// p being the schedule's period in steps (tau; tau + d for DaSGD, whose averages arrive d steps
// late; H for the DiLoCo family) and W its workers (GPUs / island GPUs). The factor is 1 for one
// worker or every-step averaging, where each of these schedules is synchronous SGD again; c is
// fitted per schedule from runs (convergence_fit.hpp) or given from a paper. The linear form is an
// assumption of this project, tested by held-back runs, not a published law.
#pragma once

#include "schedules/schedule_spec.hpp"

#include <map>
#include <optional>
#include <string>

namespace dasim::convergence {

struct ScheduleTerm {
  double period_coefficient = 0;                    // c
  std::optional<double> period_coefficient_stderr;  // from the fit, when it had the runs for one
  // The DiLoCo family: the outer step the runs had. Its learning rate and momentum change how many
  // steps a round takes, which c cannot carry over: another outer step has no term.
  std::optional<schedules::OuterStep> outer;
};

bool same_outer_step(const schedules::OuterStep& a, const schedules::OuterStep& b);
std::string describe_outer_step(const schedules::OuterStep& outer);

struct ConvergenceModel {
  std::string source;  // where the parameters come from (a fit's runs, a paper)
  double target_loss = 0;
  double steps_min = 0;    // S_min
  double batch_noise = 0;  // B_noise, samples
  std::optional<double> steps_min_stderr, batch_noise_stderr;
  // Keyed by schedule name (local_sgd, dasgd, diloco, streaming_diloco); sgd has no term.
  std::map<std::string, ScheduleTerm> schedules;
};

// S(B) for synchronous SGD.
double sgd_steps(const ConvergenceModel& model, double global_batch);
// p in the factor: tau, tau + d (dasgd), H (DiLoCo family); 1 for sgd.
int effective_period(const schedules::ScheduleSpec& spec);
// W in the factor: every GPU, or every island of island_gpus.
int workers(const schedules::ScheduleSpec& spec, int gpus);
// The factor's variable (p - 1)(1 - 1/W): 0 where the schedule is synchronous SGD.
double period_exposure(const schedules::ScheduleSpec& spec, int gpus);

// Why the model has no factor for this schedule at any worker count (compression, eager outer
// steps, no term in the file); nullopt when it has one (and for sgd).
std::optional<std::string> no_term_for(const ConvergenceModel& model, const schedules::ScheduleSpec& spec);
// Steps to the target, or why the model has none for this configuration. The global batch is
// gpus x samples_per_gpu_step (a GPU's micro-batch times the accumulation steps).
struct StepsPrediction {
  std::optional<double> steps;
  std::string why_not;  // when there are no steps: one sentence
};
StepsPrediction predict_steps(const ConvergenceModel& model, const schedules::ScheduleSpec& spec, int gpus,
                              double samples_per_gpu_step);

}  // namespace dasim::convergence
