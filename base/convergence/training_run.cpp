#include "convergence/training_run.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"
#include "convergence/steps_to_target.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dasim::convergence {

namespace {

const nlohmann::json& member(const nlohmann::json& object, const std::string& key, const std::string& file,
                             const std::string& path) {
  if (!object.is_object() || !object.contains(key))
    throw InputError(file, path.empty() ? key : path + "." + key,
                     "required key is missing (is this a dasim-train -o file?)");
  return object.at(key);
}

int positive_int(const nlohmann::json& object, const std::string& key, const std::string& file,
                 const std::string& path) {
  const auto& v = member(object, key, file, path);
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > (1 << 30))
    throw InputError(file, path + "." + key, fmt::format("expected an integer >= 1, got {}", v.dump()));
  return v.get<int>();
}

schedules::ScheduleSpec read_schedule(const nlohmann::json& config, const std::string& file) {
  schedules::ScheduleSpec spec;
  const auto& kind = member(config, "schedule", file, "config");
  const auto parsed =
      kind.is_string() ? schedules::kScheduleKindNames.parse(kind.get<std::string>()) : std::nullopt;
  if (!parsed)
    throw InputError(file, "config.schedule", fmt::format("expected a schedule name, got {}", kind.dump()));
  spec.kind = *parsed;
  spec.tau = positive_int(config, "tau", file, "config");
  const auto& delay = member(config, "delay", file, "config");
  if (!delay.is_number_integer() || delay.get<int64_t>() < 0 || delay.get<int64_t>() > spec.tau)
    throw InputError(file, "config.delay",
                     fmt::format("expected an integer in 0..tau, got {}", delay.dump()));
  spec.delay = delay.get<int>();
  // Written since fit-convergence reads runs; older runs had neither (no islands, not eager).
  if (config.contains("island_ranks"))
    spec.island_gpus = positive_int(config, "island_ranks", file, "config");
  if (config.contains("gradient_accumulation_steps"))  // written since dasim-train accumulates
    spec.accumulation_steps = positive_int(config, "gradient_accumulation_steps", file, "config");
  if (config.contains("eager")) {
    if (!config.at("eager").is_boolean()) throw InputError(file, "config.eager", "expected true or false");
    spec.eager = config.at("eager").get<bool>();
  }
  if (config.contains("bits")) {  // written for runs with --bits below 32 only
    const auto& bits = config.at("bits");
    if (!bits.is_number_integer() || !schedules::is_payload_bits(bits.get<int64_t>()))
      throw InputError(file, "config.bits", fmt::format("expected 32, 16, 8 or 4, got {}", bits.dump()));
    spec.payload_bits = bits.get<int>();
  }
  if (config.contains("top_k")) {  // written for runs with --top-k only
    const auto& density = config.at("top_k");
    if (!density.is_number() || !(density.get<double>() > 0 && density.get<double>() < 1))
      throw InputError(file, "config.top_k",
                       fmt::format("expected a density in (0, 1), got {}", density.dump()));
    spec.top_k.density = density.get<double>();
  }
  // The DiLoCo family's outer step (dasim-train writes it since fit-convergence reads it; older
  // runs had its defaults unless their command line said otherwise, which the fit cannot know).
  if (config.contains("outer")) {
    const auto& outer = config.at("outer");
    const auto optimizer = member(outer, "optimizer", file, "config.outer");
    const auto parsed_optimizer = optimizer.is_string()
                                      ? schedules::kOuterOptimizerNames.parse(optimizer.get<std::string>())
                                      : std::nullopt;
    if (!parsed_optimizer)
      throw InputError(file, "config.outer.optimizer",
                       fmt::format("expected sgd or nesterov, got {}", optimizer.dump()));
    spec.outer.optimizer = *parsed_optimizer;
    for (auto [key, field] : {std::pair{"lr", &schedules::OuterStep::lr},
                              std::pair{"momentum", &schedules::OuterStep::momentum}}) {
      const auto& v = member(outer, key, file, "config.outer");
      if (!v.is_number()) throw InputError(file, std::string("config.outer.") + key, "expected a number");
      spec.outer.*field = v.get<double>();
    }
  }
  return spec;
}

std::vector<double> read_loss_curve(const nlohmann::json& root, const std::string& file) {
  const auto& curve = member(root, "loss_curve", file, "");
  if (!curve.is_array() || curve.empty())
    throw InputError(file, "loss_curve", "expected a non-empty array of losses, one per step");
  std::vector<double> loss;
  for (size_t k = 0; k < curve.size(); ++k) {
    if (!curve[k].is_number() || !std::isfinite(curve[k].get<double>()))
      throw InputError(file, fmt::format("loss_curve[{}]", k), "expected a finite number");
    loss.push_back(curve[k].get<double>());
  }
  return loss;
}

}  // namespace

TrainingRun load_training_run(const std::string& file, double target_loss, std::optional<int> window) {
  const nlohmann::json root = load_json_file(file);
  const auto& config = member(root, "config", file, "");
  TrainingRun run;
  run.file = file;
  run.schedule = read_schedule(config, file);
  run.ranks = positive_int(config, "ranks", file, "config");
  run.batch_per_rank = positive_int(config, "batch_per_rank", file, "config");
  const int steps_window =
      window ? *window : positive_int(member(root, "target", file, ""), "window_steps", file, "target");
  const auto loss = read_loss_curve(root, file);
  const auto reached = steps_to_target(loss, target_loss, steps_window);
  if (!reached)
    throw InputError(
        file, "loss_curve",
        fmt::format("the mean loss over {} steps never reaches {} in {} steps (lowest loss {:.4g}): "
                    "run it longer or choose a higher --target-loss",
                    steps_window, target_loss, loss.size(), *std::min_element(loss.begin(), loss.end())));
  run.steps = *reached;
  return run;
}

}  // namespace dasim::convergence
