// `mpirun -np N dasim-mpi-sweep SCENARIO --out DIR [--plot] [--force] [--dasim PATH]`: a scenario's
// configurations spread over MPI ranks. Rank 0 asks `dasim run --print-plan` for the
// configurations largest first and hands them out one at a time to whichever worker rank is free
// (dynamic assignment, so a few long configurations do not hold up the rest); each worker runs
// `dasim run --configuration I` into DIR.parts/cI (a shared file system, as on a cluster), and
// rank 0 joins them with `dasim merge`, so DIR holds the result set one local run would have
// written, byte for byte. A configuration that fails stops the hand-out and fails the run with
// its number, the rank and the child's last line; rank 0 logs every assignment on stderr, so a
// rank that dies is named by the log too. With one rank, rank 0 runs them all itself.
#include "child_process.hpp"

#include <mpi.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dasim::sweep::ChildOutcome;
using dasim::sweep::last_line;
using dasim::sweep::run_child;

namespace {

struct Args {
  std::string scenario;
  std::string out;
  std::string dasim;
  bool plot = false;
  bool force = false;
};

constexpr int kTagDone = 1;    // worker -> 0: {configuration or -1 when just ready, 1 ok / 0 failed}
constexpr int kTagWhy = 2;     // worker -> 0: the failure's text, after a failed kTagDone
constexpr int kTagAssign = 3;  // 0 -> worker: a configuration, or -1: stop
constexpr int kStop = -1;

fs::path parts_of(const Args& a) {
  return fs::path(a.out + ".parts");
}

// One configuration, on whichever rank: `dasim run --configuration I` into DIR.parts/cI.
ChildOutcome run_configuration(const Args& a, int configuration, std::string& why) {
  const fs::path dir = parts_of(a) / fmt::format("c{}", configuration);
  std::vector<std::string> argv{a.dasim,      "run",     a.scenario,        "--out",
                                dir.string(), "--quiet", "--configuration", std::to_string(configuration)};
  if (a.force) argv.push_back("--force");
  const std::string err = dir.string() + ".err";
  ChildOutcome outcome = run_child(argv, dir.string() + ".out", err);
  if (!outcome.ok) {
    const std::string said = last_line(err);
    why = said.empty() ? outcome.how : fmt::format("{}: {}", outcome.how, said);
  }
  return outcome;
}

// The configurations largest first, from `dasim run --print-plan`; nullopt after printing the
// child's error (the scenario's own, as `dasim run` would print it).
std::optional<std::vector<int>> plan(const Args& a, int& status) {
  const fs::path out = parts_of(a) / "plan.json", err = parts_of(a) / "plan.err";
  std::vector<std::string> argv{a.dasim, "run", a.scenario, "--out", a.out, "--print-plan"};
  if (a.force) argv.push_back("--force");
  const ChildOutcome outcome = run_child(argv, out.string(), err.string());
  if (!outcome.ok) {
    std::ifstream in(err);
    std::string line;
    while (std::getline(in, line)) fmt::print(stderr, "{}\n", line);
    status = outcome.how == "exit status 2" ? 2 : 1;
    return std::nullopt;
  }
  const auto j = nlohmann::json::parse(std::ifstream(out));
  return j.at("largest_first").get<std::vector<int>>();
}

void worker(const Args& a) {
  int message[2] = {kStop, 1};  // ready
  while (true) {
    MPI_Send(message, 2, MPI_INT, 0, kTagDone, MPI_COMM_WORLD);
    int configuration = kStop;
    MPI_Recv(&configuration, 1, MPI_INT, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (configuration == kStop) return;
    std::string why;
    const bool ok = run_configuration(a, configuration, why).ok;
    message[0] = configuration;
    message[1] = ok ? 1 : 0;
    if (!ok) {
      MPI_Send(message, 2, MPI_INT, 0, kTagDone, MPI_COMM_WORLD);
      MPI_Send(why.data(), static_cast<int>(why.size()), MPI_CHAR, 0, kTagWhy, MPI_COMM_WORLD);
      message[0] = kStop;  // the next kTagDone only asks for work
      message[1] = 1;
      int stop = kStop;
      MPI_Recv(&stop, 1, MPI_INT, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return;  // 0 stops the hand-out after a failure
    }
  }
}

// Rank 0 with workers: hands out `order`, returns the first failure ("" when none).
std::string coordinate(const std::vector<int>& order, int ranks) {
  size_t next = 0;
  int stopped = 0;
  std::string failure;
  while (stopped < ranks - 1) {
    int message[2];
    MPI_Status status;
    MPI_Recv(message, 2, MPI_INT, MPI_ANY_SOURCE, kTagDone, MPI_COMM_WORLD, &status);
    const int rank = status.MPI_SOURCE;
    if (message[1] == 0) {
      MPI_Probe(rank, kTagWhy, MPI_COMM_WORLD, &status);
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      std::string why(static_cast<size_t>(length), '\0');
      MPI_Recv(why.data(), length, MPI_CHAR, rank, kTagWhy, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (failure.empty())
        failure = fmt::format("configuration {} failed on rank {} ({})", message[0], rank, why);
    }
    int assign = kStop;
    if (failure.empty() && next < order.size()) {
      assign = order[next++];
      fmt::print(stderr, "dasim-mpi-sweep: configuration {} ({} of {}) to rank {}\n", assign, next,
                 order.size(), rank);
    } else {
      ++stopped;
    }
    MPI_Send(&assign, 1, MPI_INT, rank, kTagAssign, MPI_COMM_WORLD);
  }
  return failure;
}

int rank_zero(const Args& a, int ranks) {
  std::error_code ec;
  fs::remove_all(parts_of(a), ec);
  fs::create_directories(parts_of(a), ec);
  if (ec) {
    fmt::print(stderr, "dasim-mpi-sweep: cannot create {}: {}\n", parts_of(a).string(), ec.message());
    for (int r = 1; r < ranks; ++r) MPI_Send(&kStop, 1, MPI_INT, r, kTagAssign, MPI_COMM_WORLD);
    return 1;
  }
  int status = 0;
  const auto order = plan(a, status);
  std::string failure;
  if (!order) {  // the scenario's error is printed: stop every worker
    for (int r = 1; r < ranks; ++r) {
      int ready[2];
      MPI_Recv(ready, 2, MPI_INT, r, kTagDone, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&kStop, 1, MPI_INT, r, kTagAssign, MPI_COMM_WORLD);
    }
    fs::remove_all(parts_of(a), ec);
    return status;
  }
  if (ranks == 1) {
    for (size_t k = 0; k < order->size() && failure.empty(); ++k) {
      fmt::print(stderr, "dasim-mpi-sweep: configuration {} ({} of {}) to rank 0\n", (*order)[k], k + 1,
                 order->size());
      std::string why;
      if (!run_configuration(a, (*order)[k], why).ok)
        failure = fmt::format("configuration {} failed on rank 0 ({})", (*order)[k], why);
    }
  } else {
    failure = coordinate(*order, ranks);
  }
  if (!failure.empty()) {
    fmt::print(stderr, "dasim-mpi-sweep: {}; its output is in {}\n", failure, parts_of(a).string());
    return 1;
  }
  std::vector<std::string> argv{a.dasim, "merge"};
  for (int c : *order) argv.push_back((parts_of(a) / fmt::format("c{}", c)).string());
  argv.insert(argv.end(), {"--out", a.out});
  if (a.plot) argv.push_back("--plot");
  if (a.force) argv.push_back("--force");
  const ChildOutcome merged = run_child(argv, "", "");
  if (!merged.ok) return 1;
  fs::remove_all(parts_of(a), ec);
  return 0;
}

// The dasim beside this program (both are installed into one bin/).
std::string dasim_beside_me() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dasim") : (self.parent_path() / "dasim").string();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{
      "Spread a scenario's configurations over MPI ranks (mpirun -np N dasim-mpi-sweep SCENARIO --out DIR); "
      "results byte-identical to one dasim run"};
  app.add_option("scenario", a.scenario, "Scenario JSON file")->required();
  app.add_option("--out", a.out,
                 "Output directory; DIR.parts beside it holds the ranks' parts (a shared file "
                 "system on a cluster)")
      ->required();
  app.add_flag("--plot", a.plot, "Also draw the plots (dasim merge --plot)");
  app.add_flag("--force", a.force, "As dasim run --force");
  app.add_option("--dasim", a.dasim, "The dasim program to run (default: the one beside this program)");
  // Usage and option errors before MPI_Init: --help works without mpirun, and a bad option fails
  // fast. Only one rank says so (the ranks parse the same arguments).
  const char* world_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const bool first = world_rank == nullptr || std::string(world_rank) == "0";
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (!first) return e.get_exit_code() == 0 ? 0 : 2;
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (a.dasim.empty()) a.dasim = dasim_beside_me();
  // The scenario path as given: results.json records it, as a local run does (mpirun starts the
  // ranks in its own working directory).
  while (a.out.size() > 1 && a.out.back() == '/') a.out.pop_back();
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  if (rank == 0)
    status = rank_zero(a, ranks);
  else
    worker(a);
  // Every rank exits with rank 0's status, so mpirun's own status is the sweep's.
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
