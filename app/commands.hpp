// Each `dasim` subcommand lives in its own file and registers itself on the app through one of
// these functions. The CLI is a thin layer: parse, call the library, print.
#pragma once

#include <CLI/CLI.hpp>

namespace dasim::cli {

void add_validate_command(CLI::App& app);
void add_platform_command(CLI::App& app);
void add_collective_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_fit_links_command(CLI::App& app);
void add_fit_convergence_command(CLI::App& app);
void add_workload_command(CLI::App& app);
void add_merge_command(CLI::App& app);

}  // namespace dasim::cli
