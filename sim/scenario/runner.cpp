#include "scenario/runner.hpp"

#include "common/errors.hpp"
#include "engine/training_result_wire.hpp"
#include "runtime/isolated_run.hpp"
#include "scenario/progress_reporter.hpp"
#include "scenario/result_rows.hpp"
#include "scenario/simulation_jobs.hpp"

#include <fmt/format.h>

#include <chrono>
#include <numeric>

namespace dasim::scenario {

RunOutput run_scenario(const Scenario& sc, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto configs = expand(sc);
  if (options.trace_index && *options.trace_index >= configs.size())
    throw InputError(fmt::format("--trace {}: the scenario has configurations 0..{}", *options.trace_index,
                                 configs.size() - 1));
  std::vector<size_t> selected(configs.size());
  std::iota(selected.begin(), selected.end(), 0);
  if (options.configurations) selected = *options.configurations;
  const SimulationJobs jobs = plan_jobs(sc, configs, selected, options.trace_index, options.trace_ranks);

  std::vector<std::function<std::string()>> ordered;
  for (size_t i : jobs.run_order) ordered.push_back(jobs.bodies[i]);
  ProgressReporter progress(sc.name, ordered.size(), options.quiet);
  auto ordered_outputs = runtime::run_isolated_parallel(
      ordered, options.jobs, [&](size_t) { progress.one_done(); },
      [&](size_t k) { return jobs.names[jobs.run_order[k]]; },
      [&](double in_flight) { progress.running(in_flight); });
  std::vector<engine::TrainingResult> results(jobs.bodies.size());
  for (size_t i = 0; i < jobs.run_order.size(); ++i)
    results[jobs.run_order[i]] = engine::training_result_from_wire(ordered_outputs[i]);

  RunOutput out;
  for (size_t k = 0; k < selected.size(); ++k) {
    const size_t i = selected[k];
    auto& result = results[jobs.first_configuration + k];
    out.rows.push_back(make_result_row(sc, configs[i], result, results[jobs.baseline_of(configs[i])]));
    out.indices.push_back(i);
    if (options.trace_index && *options.trace_index == i)
      out.trace = TracedConfiguration{i, sc.platforms[configs[i].platform].spec.gpus_per_node,
                                      std::move(result.trace)};
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace dasim::scenario
