// `dasim fit-links LOG --out FILE`: fits link latency and bandwidth (alpha-beta) to an nccl-tests,
// CSV or OSU-style benchmark log and writes them, with the residuals, as JSON.
#include "commands.hpp"
#include "common/atomic_file.hpp"
#include "linkfit/alpha_beta_fit.hpp"
#include "linkfit/log_parser.hpp"

#include <fmt/format.h>

#include <memory>

namespace dasim::cli {

namespace {
struct FitLinksArgs {
  std::string log;
  std::string out;
  double min_bytes = -1, max_bytes = -1;
};
}  // namespace

void add_fit_links_command(CLI::App& app) {
  auto args = std::make_shared<FitLinksArgs>();
  CLI::App* cmd =
      app.add_subcommand("fit-links", "Fit link latency and bandwidth to an nccl-tests / OSU / CSV log");
  cmd->add_option("LOG", args->log, "benchmark log (nccl-tests table or CSV, OSU latency/bandwidth table)")
      ->required();
  cmd->add_option("--out", args->out, "output JSON file")->required();
  cmd->add_option("--min-bytes", args->min_bytes, "ignore messages smaller than this (bytes)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-bytes", args->max_bytes, "ignore messages larger than this (bytes)")
      ->check(CLI::PositiveNumber);
  cmd->callback([args] {
    linkfit::ParsedLog log = linkfit::parse_log_file(args->log);
    linkfit::LinkFitOptions options;
    if (args->min_bytes >= 0) options.min_bytes = args->min_bytes;
    if (args->max_bytes > 0) options.max_bytes = args->max_bytes;
    nlohmann::json report = linkfit::fit_links_report(log, args->log, options);
    write_file_atomically(args->out, report.dump(2) + "\n");
    const auto& link = report["link"];
    fmt::print("{}: {} rows ({}): latency {:.3g} s, bandwidth {:.4g} B/s -> {}\n", args->log,
               log.samples.size(), log.format, link["latency"].get<double>(), link["bandwidth"].get<double>(),
               args->out);
  });
}

}  // namespace dasim::cli
