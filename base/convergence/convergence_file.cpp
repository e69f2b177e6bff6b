#include "convergence/convergence_file.hpp"

#include "common/closest_name.hpp"
#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dasim::convergence {

namespace {

// The schedules that have a term; sgd is the model's reference and has none.
const std::vector<std::string> kScheduleNames{"local_sgd", "dasgd", "diloco", "streaming_diloco"};

double positive(ObjectReader& reader, const std::string& key) {
  const double v = reader.number(key);
  if (!(v > 0) || !std::isfinite(v)) reader.fail(key, fmt::format("expected a number > 0, got {}", v));
  return v;
}

std::optional<double> optional_stderr(ObjectReader& reader, const std::string& key) {
  const auto v = reader.optional_number(key);
  if (v && (!(*v >= 0) || !std::isfinite(*v)))
    reader.fail(key, fmt::format("expected a standard error >= 0, got {}", *v));
  return v;
}

ScheduleTerm read_term(ObjectReader reader) {
  ScheduleTerm term;
  term.period_coefficient = reader.number("period_coefficient");
  if (!std::isfinite(term.period_coefficient)) reader.fail("period_coefficient", "expected a finite number");
  term.period_coefficient_stderr = optional_stderr(reader, "period_coefficient_stderr");
  if (reader.has("outer")) {
    ObjectReader outer = reader.object("outer");
    schedules::OuterStep step;
    step.optimizer = outer.enumeration("optimizer", schedules::kOuterOptimizerNames);
    step.lr = outer.number("lr");
    step.momentum = outer.number("momentum");
    if (!(step.lr > 0) || !std::isfinite(step.lr)) outer.fail("lr", "expected an outer learning rate > 0");
    if (!(step.momentum >= 0 && step.momentum < 1)) outer.fail("momentum", "expected a momentum in [0, 1)");
    outer.finish();
    term.outer = step;
  }
  reader.finish();
  return term;
}

}  // namespace

ConvergenceModel convergence_from_json(const nlohmann::json& root, const std::string& file) {
  ObjectReader top(root, file, "");
  const std::string format = top.string("format");
  if (format != kConvergenceFormat)
    top.fail("format", fmt::format("expected \"{}\", got \"{}\"", kConvergenceFormat, format));
  ConvergenceModel model;
  model.source = top.optional_string("source").value_or("");
  model.target_loss = top.number("target_loss");
  if (!std::isfinite(model.target_loss)) top.fail("target_loss", "expected a finite number");
  model.steps_min = positive(top, "steps_min");
  model.batch_noise = top.number("batch_noise");
  if (!(model.batch_noise >= 0) || !std::isfinite(model.batch_noise))
    top.fail("batch_noise", fmt::format("expected a batch size >= 0 (samples), got {}", model.batch_noise));
  model.steps_min_stderr = optional_stderr(top, "steps_min_stderr");
  model.batch_noise_stderr = optional_stderr(top, "batch_noise_stderr");
  if (top.has("schedules")) {
    ObjectReader schedules = top.object("schedules");
    for (const auto& item : top.raw("schedules").items()) {
      const std::string name = item.key();
      if (name == "sgd")
        schedules.fail(name, "sgd is the model's reference (steps_min, batch_noise) and has no term");
      if (std::find(kScheduleNames.begin(), kScheduleNames.end(), name) == kScheduleNames.end()) {
        const auto near = closest_name(name, kScheduleNames);
        schedules.fail(name,
                       fmt::format("expected a schedule of local_sgd, dasgd, diloco, streaming_diloco{}",
                                   near ? fmt::format("; did you mean \"{}\"?", *near) : ""));
      }
      model.schedules[name] = read_term(schedules.object(name));
    }
    schedules.finish();
  }
  if (top.has("fit"))
    top.raw("fit");  // written by fit-convergence for people: what it was fitted on; not read
  top.finish();
  return model;
}

ConvergenceModel load_convergence_file(const std::string& file) {
  return convergence_from_json(load_json_file(file), file);
}

nlohmann::ordered_json to_json(const ConvergenceModel& model) {
  nlohmann::ordered_json out;
  out["format"] = kConvergenceFormat;
  out["source"] = model.source;
  out["target_loss"] = model.target_loss;
  out["steps_min"] = model.steps_min;
  if (model.steps_min_stderr) out["steps_min_stderr"] = *model.steps_min_stderr;
  out["batch_noise"] = model.batch_noise;
  if (model.batch_noise_stderr) out["batch_noise_stderr"] = *model.batch_noise_stderr;
  auto schedules = nlohmann::ordered_json::object();
  for (const auto& [name, term] : model.schedules) {
    nlohmann::ordered_json t;
    t["period_coefficient"] = term.period_coefficient;
    if (term.period_coefficient_stderr) t["period_coefficient_stderr"] = *term.period_coefficient_stderr;
    if (term.outer)
      t["outer"] = {{"optimizer", schedules::kOuterOptimizerNames.name(term.outer->optimizer)},
                    {"lr", term.outer->lr},
                    {"momentum", term.outer->momentum}};
    schedules[name] = t;
  }
  out["schedules"] = schedules;
  return out;
}

}  // namespace dasim::convergence
