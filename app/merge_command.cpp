// `dasim merge SHARD... --out DIR [--plot] [--force]`: joins the shard files `dasim run --shard
// I/N` wrote (each SHARD a shard file or a directory holding them) into DIR/results.csv and
// results.json, byte-identical to one local run of the scenario, and prints its summary.
#include "commands.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "result_set.hpp"
#include "results/shard_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>

namespace dasim::cli {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> shards;
  std::string out;
  bool plot = false;
  bool force = false;
};

// A directory stands for the shard files in it (sorted, so messages do not depend on the order
// the file system lists them in).
std::vector<std::string> shard_files(const std::vector<std::string>& args) {
  static const std::regex name(R"(shard-[0-9]+-of-[0-9]+\.json)");
  std::vector<std::string> files;
  for (const auto& arg : args) {
    std::error_code ec;
    if (!fs::is_directory(arg, ec)) {
      files.push_back(arg);  // load_shard_file says what is wrong with it
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(arg, ec))
      if (entry.is_regular_file() && std::regex_match(entry.path().filename().string(), name))
        found.push_back(entry.path().string());
    if (found.empty())
      throw InputError(fmt::format("{}: is a directory without shard files (shard-I-of-N.json)", arg));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

void merge(const MergeArgs& a) {
  std::vector<results::ShardFile> shards;
  std::vector<fs::path> seen;
  for (const auto& file : shard_files(a.shards)) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(file, ec);
    if (std::find(seen.begin(), seen.end(), real) != seen.end())
      throw InputError(fmt::format("{}: is given twice", file));
    seen.push_back(real);
    shards.push_back(results::load_shard_file(file));
  }
  const auto merged = results::merge_shards(shards);
  ResultDirectory out(a.out, a.force);
  write_result_files(out, merged.header, merged.rows);
  std::vector<std::string> plots;
  if (a.plot) plots = draw_plots(out, merged.sweep_column);
  out.commit();
  print_summary(merged.rows);
  fmt::print("\n{} from {}; results in {}\n",
             units::format_count(static_cast<long long>(merged.rows.size()), "configuration"),
             units::format_count(static_cast<long long>(shards.size()), "shard"),
             (out.final_path() / "results.csv").string());
  for (const auto& f : plots) fmt::print("plot: {}\n", f);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  auto* cmd = app.add_subcommand("merge", "Join the shard files of dasim run --shard into one result set");
  cmd->add_option("shards", a->shards, "Shard files (shard-I-of-N.json) or directories holding them")
      ->required();
  cmd->add_option("--out", a->out, "Output directory (results.csv, results.json, plots)")->required();
  cmd->add_flag("--plot", a->plot, "Also draw scale-up, efficiency and breakdown plots (analysis/)");
  cmd->add_flag("--force", a->force, "Write into a directory holding other files (docs/hardening.md)");
  cmd->callback([a] { merge(*a); });
}

}  // namespace dasim::cli
