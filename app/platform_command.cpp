// `dasim platform show FILE [--nodes N]` and `dasim platform presets`.
#include "commands.hpp"
#include "platform/link_presets.hpp"
#include "platform/platform_loader.hpp"
#include "report/platform_report.hpp"
#include "runtime/isolated_run.hpp"
#include "simulation_guard.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace dasim::cli {

void add_platform_command(CLI::App& app) {
  auto* platform = app.add_subcommand("platform", "Inspect platform files and link presets");
  platform->require_subcommand(1);

  struct ShowOptions {
    std::string file;
    int nodes = 0;
    bool force = false;
  };
  auto options = std::make_shared<ShowOptions>();
  auto* show = platform->add_subcommand(
      "show", "Summary, links, bisection bandwidth and the GPU-to-GPU matrix of one node");
  show->add_option("file", options->file, "Platform JSON file")->required();
  show->add_option("--nodes", options->nodes, "Override the node count of the file (default: the file's)")
      ->check(CLI::Range(1, 1 << 20));
  show->add_flag("--force", options->force, "Simulate even beyond the GPU limit or the machine's memory");
  show->callback([options] {
    auto spec = platform::load_platform(
        options->file, options->nodes > 0 ? std::optional<int>(options->nodes) : std::nullopt);
    guard_simulation(spec, options->file, options->nodes, options->force);
    std::string text = runtime::run_isolated([&] { return report::simulate_platform_summary(spec); });
    fmt::print("{}", text);
  });

  auto* presets = platform->add_subcommand("presets", "List the link presets a platform file can name");
  presets->callback([] {
    // A header: without one the list read as unlabelled numbers.
    fmt::print("{:<10} {:>13} {:>9}  {}\n", "preset", "bandwidth", "latency", "source");
    for (const auto& p : platform::link_presets())
      fmt::print("{:<10} {:>8.2f} GB/s {:>6.2f} us  {}\n", p.name, p.bandwidth_Bps / 1e9, p.latency_s * 1e6,
                 p.source);
  });
}

}  // namespace dasim::cli
