// dasim: predicts how distributed data-parallel training scales on a simulated cluster.
// Exit status: 0 success, 1 runtime failure, 2 bad input (files, JSON, arguments).
#include "cli_main.hpp"
#include "commands.hpp"

#include <string>

int main(int argc, char** argv) {
  CLI::App app{
      "dasim: discrete-event simulator of distributed deep-learning training (SGD, local SGD, DaSGD, "
      "DiLoCo)"};
  app.set_version_flag("--version", std::string("dasim ") + DASIM_VERSION);
  app.require_subcommand(1);

  dasim::cli::add_validate_command(app);
  dasim::cli::add_platform_command(app);
  dasim::cli::add_collective_command(app);
  dasim::cli::add_run_command(app);
  dasim::cli::add_merge_command(app);
  dasim::cli::add_calibrate_command(app);
  dasim::cli::add_fit_links_command(app);
  dasim::cli::add_fit_convergence_command(app);
  dasim::cli::add_workload_command(app);

  return dasim::cli::run_cli(app, argc, argv);
}
