// What every dasim program does with its command line once its subcommands are registered: parse,
// run, and turn what went wrong into one line and the exit status (0 success, 1 runtime failure,
// 2 bad input; an interruption 128 + signal). Shared by `dasim` and `dasim-calibrate-cuda`.
#pragma once

#include <CLI/CLI.hpp>

namespace dasim::cli {

int run_cli(CLI::App& app, int argc, char** argv);

}  // namespace dasim::cli
