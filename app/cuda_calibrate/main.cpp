// dasim-calibrate-cuda: `dasim calibrate --device cuda` in a program of its own. The CUDA libraries
// it links (cuBLAS, cuBLASLt, cuDNN, NCCL) cost every process that loads them about half a second
// of static initialisation (cuBLASLt's, measured with perf), so `dasim` itself does not link them
// and execs this sibling for --device cuda (calibrate_command.cpp) with the same arguments.
#include "cli_main.hpp"
#include "commands.hpp"

#include <string>

int main(int argc, char** argv) {
  CLI::App app{"dasim calibrate --device cuda (run by dasim; see `dasim calibrate --help`)"};
  app.set_version_flag("--version", std::string("dasim ") + DASIM_VERSION);
  app.require_subcommand(1);
  dasim::cli::add_calibrate_command(app);
  return dasim::cli::run_cli(app, argc, argv);
}
