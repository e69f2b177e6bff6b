#include "engine/training_result_wire.hpp"

#include "runtime/isolated_run.hpp"

#include <nlohmann/json.hpp>

namespace dasim::engine {

std::string to_wire(const TrainingResult& r) {
  nlohmann::json trace = nlohmann::json::array();
  for (const auto& rank : r.trace) {
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : rank.events)
      events.push_back({e.name, e.category, e.begin, e.end, e.bytes, e.algorithm});
    trace.push_back({{"rank", rank.rank}, {"events", std::move(events)}});
  }
  const nlohmann::json j{{"iter_time_s", r.iter_time_s},
                         {"compute_s", r.compute_s},
                         {"compute_slowdown_s", r.compute_slowdown_s},
                         {"comm_s", r.comm_s},
                         {"exposed_comm_s", r.exposed_comm_s},
                         {"comm_max_s", r.comm_max_s},
                         {"exposed_comm_max_s", r.exposed_comm_max_s},
                         {"input_wait_s", r.input_wait_s},
                         {"algorithms_used", r.algorithms_used},
                         {"step_compute_s", r.step_compute_s},
                         {"measured_iterations", r.measured_iterations},
                         {"simulated_nodes", r.simulated_nodes},
                         {"fold_why_not", r.fold_why_not},
                         {"trace", std::move(trace)}};
  return j.dump();
}

TrainingResult training_result_from_wire(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  TrainingResult r;
  r.iter_time_s = j.at("iter_time_s").get<double>();
  r.compute_s = j.at("compute_s").get<double>();
  r.compute_slowdown_s = j.at("compute_slowdown_s").get<double>();
  r.comm_s = j.at("comm_s").get<double>();
  r.exposed_comm_s = j.at("exposed_comm_s").get<double>();
  r.comm_max_s = j.at("comm_max_s").get<double>();
  r.exposed_comm_max_s = j.at("exposed_comm_max_s").get<double>();
  r.input_wait_s = j.at("input_wait_s").get<double>();
  r.algorithms_used = j.at("algorithms_used").get<std::string>();
  r.step_compute_s = j.at("step_compute_s").get<double>();
  r.measured_iterations = j.at("measured_iterations").get<int>();
  r.simulated_nodes = j.at("simulated_nodes").get<int>();
  r.fold_why_not = j.at("fold_why_not").get<std::string>();
  for (const auto& rank : j.at("trace")) {
    RankTrace t;
    t.rank = rank.at("rank").get<int>();
    for (const auto& e : rank.at("events"))
      t.events.push_back({e.at(0).get<std::string>(), e.at(1).get<std::string>(), e.at(2).get<double>(),
                          e.at(3).get<double>(), e.at(4).get<double>(), e.at(5).get<std::string>()});
    r.trace.push_back(std::move(t));
  }
  return r;
}

TrainingResult simulate_training_isolated(const TrainingConfig& config) {
  return training_result_from_wire(runtime::run_isolated([&] { return to_wire(simulate_training(config)); }));
}

}  // namespace dasim::engine
