// `dasim run SCENARIO --out DIR`: simulates every configuration of a scenario, writes
// DIR/results.csv and DIR/results.json (and a Chrome/Perfetto trace, and plots, when asked),
// and prints the summary table.
#include "commands.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/result_directory.hpp"
#include "common/sha256.hpp"
#include "common/units.hpp"
#include "convergence/convergence_model.hpp"
#include "platform/network_model.hpp"
#include "report/chrome_trace.hpp"
#include "result_set.hpp"
#include "results/shard_file.hpp"
#include "runtime/interruption.hpp"
#include "scenario/limits.hpp"
#include "scenario/runner.hpp"
#include "scenario/shards.hpp"
#include "scenario/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

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
  std::string shard;       // "I/N": only this shard's configurations, to a shard file for dasim merge
  int configuration = -1;  // only this configuration, to a shard file of one (dasim-mpi-sweep's unit)
  bool print_plan = false;
};

// `--print-plan`: the configurations largest first (by estimated wall time) as JSON, the order
// dasim-mpi-sweep hands them out in, with each configuration's estimate.
void print_plan(const scenario::Scenario& sc, const std::vector<scenario::Configuration>& configurations) {
  const auto order = scenario::work_order(sc, configurations);
  nlohmann::ordered_json plan;
  plan["configurations"] = configurations.size();
  plan["largest_first"] = order.largest_first;
  plan["estimated_s"] = order.cost_s;
  fmt::print("{}\n", plan.dump());
}

// The SimGrid network model(s) behind the numbers, as each platform of the scenario asks for it.
std::string network_models(const scenario::Scenario& sc) {
  std::vector<std::string> models;
  for (const auto& p : sc.platforms) {
    auto model = platform::describe_network_model(p.spec.network);
    if (std::find(models.begin(), models.end(), model) == models.end()) models.push_back(std::move(model));
  }
  return fmt::format("{}", fmt::join(models, "; "));
}

// What identifies a scenario's inputs: its file, and every platform, calibration and workload file
// it reads (a workload file's layers, blocks and options change the results as much as the scenario;
// so do the length counts a built-in's bins come from).
std::string inputs_sha256(const scenario::Scenario& sc) {
  std::string hashes = sha256_of_file(sc.file);
  for (const auto& w : sc.workloads) {
    if (w.origin != "built-in") hashes += sha256_of_file(w.origin);
    if (!w.length_counts.empty()) hashes += sha256_of_file(w.length_counts);
  }
  for (const auto& p : sc.platforms) {
    hashes += sha256_of_file(p.spec.file) + p.calibration_sha256;
    for (const auto& site : p.spec.site_platforms) hashes += sha256_of_file(site.file);
  }
  if (sc.convergence) hashes += sha256_of_file(sc.convergence_file);
  return sha256_hex(hashes);
}

// Schedules the convergence model has no steps for: their time to target is empty, and says why.
void print_convergence_gaps(const scenario::Scenario& sc) {
  if (!sc.convergence) return;
  for (const auto& schedule : sc.schedules)
    if (auto why = convergence::no_term_for(*sc.convergence, schedule))
      fmt::print("time to target: {} has none where it has 2 or more workers: {}\n",
                 schedules::describe(schedule), *why);
}

results::ResultsHeader results_header(const scenario::Scenario& sc) {
  return {sc.name, sc.file, sc.description, std::string("dasim ") + DASIM_VERSION, network_models(sc)};
}

// `--shard I/N`: the shard's rows (with their configuration numbers) in DIR/shard-I-of-N.json.
void write_shard(const scenario::Scenario& sc, size_t configurations, const scenario::ShardSpec& shard,
                 const scenario::RunOutput& output, ResultDirectory& out) {
  results::ShardFile file;
  file.shard = shard.index;
  file.shards = shard.count;
  file.configurations = configurations;
  file.inputs_sha256 = inputs_sha256(sc);
  file.sweep_column = sc.sweep ? scenario::sweep_column(sc.sweep->parameter) : "";
  file.header = results_header(sc);
  file.indices = output.indices;
  file.rows = output.rows;
  const std::string name = results::shard_file_name(shard.index, shard.count);
  runtime::throw_if_interrupted();
  write_file_atomically((out.staging() / name).string(), results::to_json(file).dump(2) + "\n");
  out.commit();
  print_summary(output.rows, output.indices);
  fmt::print(
      "\nshard {} of {}: {} of {} simulated in {:.1f} s wall; in {} (join the shards with dasim merge)\n",
      shard.index, shard.count,
      units::format_count(static_cast<long long>(output.rows.size()), "configuration"), configurations,
      output.wall_s, (out.final_path() / name).string());
}

void run(const RunArgs& a) {
  auto sc = scenario::load_scenario(a.scenario);
  const auto configurations = scenario::expand(sc);
  if (!a.force) scenario::check_limits(sc, configurations);
  if (a.print_plan) return print_plan(sc, configurations);
  std::optional<scenario::ShardSpec> shard;
  if (a.configuration >= 0) {
    if (!a.shard.empty()) throw InputError("--configuration: give --shard or --configuration, not both");
    if (static_cast<size_t>(a.configuration) >= configurations.size())
      throw InputError(fmt::format("--configuration {}: the scenario has configurations 0..{}",
                                   a.configuration, configurations.size() - 1));
    shard = scenario::ShardSpec{a.configuration, static_cast<int>(configurations.size())};
  }
  if (!a.shard.empty()) shard = scenario::parse_shard(a.shard);
  if (shard) {
    // A shard holds part of the rows: plots and traces are drawn from the merged results.
    if (a.plot) throw InputError("--plot: plot the merged results (dasim merge --plot), not a shard");
    if (a.trace >= 0) throw InputError("--trace: trace a configuration in a run without --shard");
  }
  // Before anything is simulated: a bad --out fails now, not after the run.
  ResultDirectory out(a.out, a.force);
  runtime::install_interrupt_handlers();  // SIGINT/SIGTERM: children killed, no results written
  scenario::RunOptions options;
  options.jobs = a.jobs;
  options.quiet = a.quiet;
  if (a.trace >= 0) options.trace_index = static_cast<size_t>(a.trace);
  options.trace_ranks = a.trace_ranks;
  if (a.configuration >= 0)
    options.configurations = std::vector<size_t>{static_cast<size_t>(a.configuration)};
  else if (shard)
    options.configurations =
        scenario::split_into_shards(sc, configurations, shard->count)[size_t(shard->index)];
  auto output = scenario::run_scenario(sc, options);

  namespace fs = std::filesystem;
  const fs::path& dir = out.staging();
  if (shard) {
    write_shard(sc, configurations.size(), *shard, output, out);
    return;
  }
  write_result_files(out, results_header(sc), output.rows);
  const std::string trace_file = output.trace ? fmt::format("trace-{}.json", output.trace->index) : "";
  if (output.trace) {
    nlohmann::json trace{
        {"traceEvents", report::chrome_trace_events(output.trace->ranks, output.trace->gpus_per_node)},
        {"displayTimeUnit", "ms"}};
    write_file_atomically((dir / trace_file).string(), trace.dump() + "\n");
  }
  std::vector<std::string> plots;
  if (a.plot) plots = draw_plots(out, sc.sweep ? scenario::sweep_column(sc.sweep->parameter) : "");
  out.commit();

  print_summary(output.rows);
  print_convergence_gaps(sc);
  fmt::print("\n{} simulated in {:.1f} s wall; results in {}\n",
             units::format_count(static_cast<long long>(output.rows.size()), "configuration"), output.wall_s,
             (out.final_path() / "results.csv").string());
  for (const auto& f : plots) fmt::print("plot: {}\n", f);
  if (output.trace) {
    const auto held = static_cast<long long>(output.trace->ranks.size());
    const auto& row = output.rows[output.trace->index];
    fmt::print("trace: {} (configuration {}: ranks 0..{} of {}; --trace-ranks sets how many{})\n",
               (out.final_path() / trace_file).string(), output.trace->index, held - 1,
               units::format_count(row.gpus, "GPU"),
               row.simulated_nodes < row.nodes
                   ? ", up to the 2 nodes a symmetric run simulates: the others' are the same"
                   : "");
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Simulate every configuration of a scenario and write results");
  cmd->add_option("scenario", a->scenario, "Scenario JSON file")->required();
  cmd->add_option("--out", a->out, "Output directory (results.csv, results.json, trace, plots)")->required();
  cmd->add_option("--jobs", a->jobs, "Configurations simulated in parallel (processes)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
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
  cmd->add_option(
      "--shard", a->shard,
      "Run only shard I of N (0-based, e.g. a Slurm array task's I/N) into DIR/shard-I-of-N.json; "
      "join the shards with dasim merge");
  // What dasim-mpi-sweep runs on each rank: one configuration as a shard of one, and the order to
  // hand them out in. Not for users (they are in docs/cluster-sweeps.md), so not in --help.
  cmd->add_option("--configuration", a->configuration)->check(CLI::NonNegativeNumber)->group("");
  cmd->add_flag("--print-plan", a->print_plan)->group("");
  cmd->callback([a] { run(*a); });
}

}  // namespace dasim::cli
