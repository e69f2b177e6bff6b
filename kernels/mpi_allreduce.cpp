// Runs dasim-mpi-allreduce-bench under mpirun and turns its table into measurements and a fit.
#include "mpi_allreduce.hpp"

#include "linkfit/alpha_beta_fit.hpp"
#include "linkfit/log_parser.hpp"

#include <fmt/format.h>

#include <sys/wait.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace dasim::kernels {
namespace {

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / program;
    std::error_code ignored;  // an unreadable or over-long PATH entry is just not a match
    if (!dirs.substr(start, end - start).empty() && std::filesystem::exists(candidate, ignored))
      return candidate.string();
    start = end + 1;
  }
  return "";
}

// Runs `command` through the shell; returns its stdout and sets `status` to its exit status.
std::string run_capture(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    status = -1;
    return output;
  }
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int raw = pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

}  // namespace

void run_mpi_allreduce(const SuiteOptions& options, SuiteResult& result) {
  const int ranks = 2;
  std::string mpirun = find_in_path("mpirun");
  std::filesystem::path helper = std::filesystem::path(options.helper_dir) / "dasim-mpi-allreduce-bench";
  std::error_code ignored;
  if (mpirun.empty() || options.helper_dir.empty() || !std::filesystem::exists(helper, ignored)) {
    std::string why =
        mpirun.empty() ? "mpirun not found in PATH" : fmt::format("{} not found", helper.string());
    result.notes.push_back("MPI allreduce skipped: " + why);
    options.say("MPI allreduce skipped: " + why);
    return;
  }
  long max_bytes = options.quick ? (1L << 16) : (1L << 26);
  int reps = options.quick ? 5 : 20;
  std::string command =
      fmt::format("'{}' --allow-run-as-root --oversubscribe -np {} '{}' --max-bytes {} --reps {} --warmup {}",
                  mpirun, ranks, helper.string(), max_bytes, reps, options.quick ? 2 : 5);
  options.say(fmt::format("MPI allreduce 8..{} bytes, {} ranks: {}", max_bytes, ranks, command));
  int status = 0;
  std::string output = run_capture(command, status);
  if (status != 0) {
    result.notes.push_back(fmt::format("MPI allreduce failed: `{}` exited with status {}", command, status));
    options.say(result.notes.back());
    return;
  }
  const std::string source = "dasim-mpi-allreduce-bench output";
  linkfit::ParsedLog log = linkfit::parse_log_text(output, source);
  for (const auto& s : log.samples) {
    // Columns: size, median, min, max, stddev (us), repetitions.
    if (s.columns.size() < 6) continue;
    Measurement m;
    m.name = fmt::format("mpi_allreduce_{}", static_cast<long>(s.bytes));
    m.kind = "allreduce";
    m.params = {{"bytes", s.bytes},
                {"ranks", ranks},
                {"op", "MPI_SUM"},
                {"type", "MPI_FLOAT"},
                {"launcher", "mpirun"}};
    m.stats = {static_cast<int>(s.columns[5]), s.columns[1] * 1e-6, s.columns[2] * 1e-6, s.columns[3] * 1e-6,
               s.columns[4] * 1e-6};
    m.bytes = s.bytes;
    result.measurements.push_back(std::move(m));
  }
  nlohmann::json report = linkfit::fit_links_report(log, source, {});
  report["ranks"] = ranks;
  report.erase("log");
  result.links["mpi_allreduce_local"] = report;
  options.say(fmt::format("MPI allreduce: alpha {:.3g} s, beta {:.4g} B/s",
                          report["link"]["latency"].get<double>(),
                          report["link"]["bandwidth"].get<double>()));
}

}  // namespace dasim::kernels
