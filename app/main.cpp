// dasim: predicts how distributed data-parallel training scales on a simulated cluster.
// Exit status: 0 success, 1 runtime failure, 2 bad input (files, JSON, arguments).
#include "commands.hpp"
#include "common/errors.hpp"
#include "runtime/interruption.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{
      "dasim: discrete-event simulator of distributed deep-learning training (SGD, local SGD, DaSGD, "
      "DiLoCo)"};
  app.set_version_flag("--version", std::string("dasim ") + DASIM_VERSION);
  app.require_subcommand(1);
  // Bad arguments are bad input like any other: one line on stderr, exit status 2.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("dasim: error: ") + e.what() + " (see --help)\n";
  });

  dasim::cli::add_validate_command(app);
  dasim::cli::add_platform_command(app);
  dasim::cli::add_collective_command(app);
  dasim::cli::add_run_command(app);
  dasim::cli::add_merge_command(app);
  dasim::cli::add_calibrate_command(app);
  dasim::cli::add_fit_links_command(app);
  dasim::cli::add_workload_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0 in CLI11.
    int code = app.exit(e);
    return code == 0 ? dasim::kExitOk : dasim::kExitBadInput;
  } catch (const dasim::InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: error: {}\n", e.what());
    return dasim::kExitBadInput;
  } catch (const dasim::RuntimeFailure& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: failed: {}\n", e.what());
    return dasim::kExitRuntimeFailure;
  } catch (const dasim::runtime::Interrupted& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: {}\n", e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: internal error: {}\n", e.what());
    return dasim::kExitRuntimeFailure;
  }
  return dasim::kExitOk;
}
