#include "report/plots.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>

extern char** environ;

namespace dasim::report {
namespace {

// The analysis scripts need Debian's matplotlib, which a pyenv or venv python3 on PATH may lack.
std::string python() {
  if (const char* p = std::getenv("DASIM_PYTHON")) return p;
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

void run_script(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    throw RuntimeFailure(fmt::format("cannot start {}", args[0]));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw RuntimeFailure(fmt::format("cannot wait for {}", args[1]));
    // A signal reached dasim (an interrupted `dasim run`): the plot is not wanted any more, and
    // must not outlive the run.
    kill(pid, SIGTERM);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw RuntimeFailure(
        fmt::format("{} failed (exit status {})", args[1], WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace

std::string analysis_dir() {
  if (const char* dir = std::getenv("DASIM_ANALYSIS_DIR")) return dir;
  // <prefix>/bin/dasim finds <prefix>/share/dasim/analysis: a copy in an installed tree, a link to
  // the sources in the build tree (analysis/CMakeLists.txt), so no source path is compiled in.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw RuntimeFailure("cannot locate the dasim binary (/proc/self/exe) to find the analysis scripts");
  return (exe.parent_path().parent_path() / "share" / "dasim" / "analysis").string();
}

std::vector<std::string> make_plots(const std::string& results_csv, const std::string& out_dir,
                                    const std::string& sweep_column) {
  const std::string dir = analysis_dir();
  if (!std::filesystem::exists(std::filesystem::path(dir) / "plot_scaleup.py"))
    throw RuntimeFailure(fmt::format("the analysis scripts are not in {} (set DASIM_ANALYSIS_DIR)", dir));
  std::vector<std::string> written;
  auto out = [&](const std::string& name) { return (std::filesystem::path(out_dir) / name).string(); };
  // --quiet: the scripts' "wrote FILE" lines would name the staging directory; the caller reports
  // the final paths.
  run_script({python(), dir + "/plot_scaleup.py", "--quiet", results_csv, "-o", out("scaleup.png"),
              "--efficiency-out", out("scaleup_efficiency.png")});
  written.push_back(out("scaleup.png"));
  written.push_back(out("scaleup_efficiency.png"));
  // Drawn only when some row has a time to target (a scenario with a convergence model).
  if (std::filesystem::exists(out("time_to_target.png"))) written.push_back(out("time_to_target.png"));
  run_script({python(), dir + "/plot_breakdown.py", "--quiet", results_csv, "-o", out("breakdown.png")});
  written.push_back(out("breakdown.png"));
  if (!sweep_column.empty()) {
    run_script({python(), dir + "/plot_sizing.py", "--quiet", results_csv, "-o", out("sizing.png"),
                "--column", sweep_column});
    written.push_back(out("sizing.png"));
  }
  return written;
}

}  // namespace dasim::report
