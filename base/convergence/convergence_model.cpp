#include "convergence/convergence_model.hpp"

#include <fmt/format.h>

namespace dasim::convergence {

double sgd_steps(const ConvergenceModel& model, double global_batch) {
  return model.steps_min * (1.0 + model.batch_noise / global_batch);
}

int effective_period(const schedules::ScheduleSpec& spec) {
  using schedules::ScheduleKind;
  switch (spec.kind) {
    case ScheduleKind::sgd:
      return 1;
    case ScheduleKind::dasgd:
      return spec.tau + spec.delay;  // the average a worker merges is tau + d steps old at most
    case ScheduleKind::local_sgd:
    case ScheduleKind::diloco:
    case ScheduleKind::streaming_diloco:
      return spec.tau;
  }
  return 1;
}

int workers(const schedules::ScheduleSpec& spec, int gpus) {
  return schedules::has_islands(spec) ? gpus / spec.island_gpus : gpus;
}

double period_exposure(const schedules::ScheduleSpec& spec, int gpus) {
  const int w = workers(spec, gpus);
  return (effective_period(spec) - 1) * (1.0 - 1.0 / w);
}

bool same_outer_step(const schedules::OuterStep& a, const schedules::OuterStep& b) {
  return a.optimizer == b.optimizer && a.lr == b.lr && a.momentum == b.momentum;
}

std::string describe_outer_step(const schedules::OuterStep& outer) {
  return fmt::format("{} lr={:g} mu={:g}", schedules::kOuterOptimizerNames.name(outer.optimizer), outer.lr,
                     outer.momentum);
}

std::optional<std::string> no_term_for(const ConvergenceModel& model, const schedules::ScheduleSpec& spec) {
  if (spec.kind == schedules::ScheduleKind::sgd) return std::nullopt;
  // The factor has no term for these: a prediction would be the uncompressed, non-eager one.
  if (spec.payload_bits != 32)
    return fmt::format("the model has no term for {}-bit compression", spec.payload_bits);
  if (schedules::has_top_k(spec)) return "the model has no term for top-k sparsification";
  if (spec.eager) return "the model has no term for eager outer steps";
  const std::string name = schedules::to_string(spec.kind);
  const auto term = model.schedules.find(name);
  if (term == model.schedules.end()) return fmt::format("the convergence file has no {} term", name);
  if (term->second.outer && !same_outer_step(*term->second.outer, spec.outer))
    return fmt::format("the convergence file's {} term was fitted with outer {}, not {}", name,
                       describe_outer_step(*term->second.outer), describe_outer_step(spec.outer));
  return std::nullopt;
}

StepsPrediction predict_steps(const ConvergenceModel& model, const schedules::ScheduleSpec& spec, int gpus,
                              double samples_per_gpu_step) {
  const double base = sgd_steps(model, gpus * samples_per_gpu_step);
  const double exposure = period_exposure(spec, gpus);
  if (exposure == 0) return {base, ""};  // sgd, or one worker: synchronous SGD whatever the schedule
  if (auto why = no_term_for(model, spec)) return {std::nullopt, *why};
  const auto& term = model.schedules.at(schedules::to_string(spec.kind));
  const double factor = 1.0 + term.period_coefficient * exposure;
  if (factor <= 0)
    return {std::nullopt,
            fmt::format("the factor 1 + {:.4g} x {:.4g} is not positive: outside the fitted range",
                        term.period_coefficient, exposure)};
  return {base * factor, ""};
}

}  // namespace dasim::convergence
