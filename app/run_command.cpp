// `dasim run SCENARIO --out DIR`: simulates every configuration of a scenario, writes
// DIR/results.csv and DIR/results.json (and a Chrome/Perfetto trace, and plots, when asked),
// and prints the summary table.
#include "commands.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/result_directory.hpp"
#include "common/units.hpp"
#include "platform/network_model.hpp"
#include "platform/platform_variants.hpp"
#include "report/chrome_trace.hpp"
#include "report/plots.hpp"
#include "report/summary_table.hpp"
#include "runtime/interruption.hpp"
#include "scenario/limits.hpp"
#include "scenario/runner.hpp"
#include "workload/precision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

namespace dasim::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string out;
  int jobs = 1;
  bool quiet = false;
  int trace = -1;
  int trace_ranks = 64;
  bool plot = false;
  bool force = false;
};

// The SimGrid network model(s) behind the numbers, as each platform of the scenario asks for it.
std::string network_models(const scenario::Scenario& sc) {
  std::vector<std::string> models;
  for (const auto& p : sc.platforms) {
    auto model = platform::describe_network_model(p.spec.network);
    if (std::find(models.begin(), models.end(), model) == models.end()) models.push_back(std::move(model));
  }
  return fmt::format("{}", fmt::join(models, "; "));
}

void run(const RunArgs& a) {
  auto sc = scenario::load_scenario(a.scenario);
  if (!a.force) scenario::check_limits(sc, scenario::expand(sc));
  // Before anything is simulated: a bad --out fails now, not after the run.
  ResultDirectory out(a.out, a.force);
  runtime::install_interrupt_handlers();  // SIGINT/SIGTERM: children killed, no results written
  scenario::RunOptions options;
  options.jobs = a.jobs;
  options.quiet = a.quiet;
  if (a.trace >= 0) options.trace_index = static_cast<size_t>(a.trace);
  options.trace_ranks = a.trace_ranks;
  auto output = scenario::run_scenario(sc, options);

  namespace fs = std::filesystem;
  const fs::path& dir = out.staging();
  nlohmann::ordered_json doc;
  doc["scenario"] = sc.name;
  doc["scenario_file"] = sc.file;
  doc["description"] = sc.description;
  doc["generated_by"] = std::string("dasim ") + DASIM_VERSION;
  doc["network_model"] = network_models(sc);
  doc["rows"] = results::to_json(output.rows);
  runtime::throw_if_interrupted();
  write_file_atomically((dir / "results.csv").string(), results::to_csv(output.rows));
  write_file_atomically((dir / "results.json").string(), doc.dump(2) + "\n");
  const std::string trace_file = output.trace ? fmt::format("trace-{}.json", output.trace->index) : "";
  if (output.trace) {
    nlohmann::json trace{
        {"traceEvents", report::chrome_trace_events(output.trace->ranks, output.trace->gpus_per_node)},
        {"displayTimeUnit", "ms"}};
    write_file_atomically((dir / trace_file).string(), trace.dump() + "\n");
  }
  std::vector<std::string> plots;
  if (a.plot) try {
      for (const auto& file : report::make_plots((dir / "results.csv").string(), dir.string(),
                                                 sc.sweep ? platform::sweep_column(sc.sweep->parameter) : ""))
        plots.push_back((out.final_path() / fs::path(file).filename()).string());
    } catch (const RuntimeFailure&) {
      runtime::throw_if_interrupted();  // the plotter died of the same Ctrl-C: an interruption
      throw;
    }
  runtime::throw_if_interrupted();  // a signal while plotting: still nothing left behind
  out.commit();

  fmt::print("{}", report::summary_table(output.rows));
  // Say which compute figures the numbers rest on: datasheet assumptions are not measurements.
  std::set<std::pair<std::string, std::string>> calibrations;
  for (const auto& row : output.rows) calibrations.insert({row.calibration, row.calibration_sha256});
  for (const auto& [c, sha256] : calibrations)
    fmt::print("calibration: {}, sha256 {}\n", c, sha256.substr(0, 12));
  // A precision the device has no rate for ran at the fp32 rate: say so, not only in a column.
  std::set<std::string> fallbacks;
  for (const auto& row : output.rows)
    if (row.compute_precision != workload::compute_precision(workload::parse_precision(row.precision)))
      fallbacks.insert(fmt::format("precision: {} on {} ran at the {} rate (its calibration has no {} rate)",
                                   row.precision, row.platform, row.compute_precision,
                                   workload::compute_precision(workload::parse_precision(row.precision))));
  for (const auto& f : fallbacks) fmt::print("{}\n", f);
  fmt::print("\n{} simulated in {:.1f} s wall; results in {}\n",
             units::format_count(static_cast<long long>(output.rows.size()), "configuration"), output.wall_s,
             (out.final_path() / "results.csv").string());
  for (const auto& f : plots) fmt::print("plot: {}\n", f);
  if (output.trace) {
    const auto held = static_cast<long long>(output.trace->ranks.size());
    fmt::print("trace: {} (configuration {}: ranks 0..{} of {}; --trace-ranks sets how many)\n",
               (out.final_path() / trace_file).string(), output.trace->index, held - 1,
               units::format_count(output.rows[output.trace->index].gpus, "GPU"));
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Simulate every configuration of a scenario and write results");
  cmd->add_option("scenario", a->scenario, "Scenario JSON file")->required();
  cmd->add_option("--out", a->out, "Output directory (results.csv, results.json, trace, plots)")->required();
  cmd->add_option("--jobs", a->jobs, "Configurations simulated in parallel (processes)")
      ->check(CLI::Range(1, 256));
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->add_option("--trace", a->trace, "Write a Chrome/Perfetto timeline of configuration INDEX (0-based)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--trace-ranks", a->trace_ranks, "Ranks 0..N-1 of the traced configuration in its trace")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--force", a->force,
                "Run even beyond the GPU/iteration/bucket limits, and into a directory holding other files "
                "(docs/hardening.md)");
  cmd->add_flag("--plot", a->plot, "Also draw scale-up, efficiency and breakdown plots (analysis/)");
  cmd->callback([a] { run(*a); });
}

}  // namespace dasim::cli
