// dasim-train: `mpirun -np N dasim-train [options]` trains an MLP data-parallel over MPI with sgd,
// local_sgd or dasgd and writes measured result rows in dasim's schema (see docs/executor.md).
// The fixed shape: parse (before MPI, so bad arguments end every rank alike), initialise MPI,
// load the shard (ranks agree on any failure), train, gather, rank 0 writes.
#include "comm.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/sibling_program.hpp"
#include "options.hpp"
#include "run_output.hpp"
#include "shard.hpp"
#include "summary.hpp"
#include "trainer.hpp"
#ifdef DASIM_TRAIN_CUDA
#include "cuda/gpu_trainer.hpp"
#endif

#include <cblas.h>
#include <fmt/format.h>
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <variant>

using namespace dasim;
using namespace dasim::executor;

namespace {

// The rank before MPI_Init, from the launcher's environment, so only one rank prints an argument
// error (every rank still exits 2).
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return 0;
}

// Every rank contributes its status; all get the worst (max), so they all take the same exit.
int agree(int status, MPI_Comm comm) {
  int worst = 0;
  WatchdogGuard guard("MPI_Allreduce (status agreement)");
  mpi_check(MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce (status agreement)");
  return worst;
}

#ifndef DASIM_TRAIN_CUDA
// --device cuda: this process becomes dasim-train-cuda (beside this binary) with the same
// arguments, before MPI_Init, so the launcher's environment carries over. This binary links no
// CUDA library: their static initialisation would slow every CPU rank's start by about 0.5 s.
[[noreturn]] void exec_cuda_sibling(char** argv) {
#ifdef DASIM_TRAIN_CUDA_SIBLING
  const std::string sibling = sibling_program("dasim-train-cuda");
  if (sibling.empty())
    throw InputError(
        "dasim-train: --device cuda: dasim-train-cuda is missing beside dasim-train (build it with the "
        "rest)");
  std::vector<std::string> args;
  for (char** a = argv; *a; ++a) args.emplace_back(*a);
  throw InputError(
      fmt::format("dasim-train: --device cuda: cannot run {}: {}", sibling, replace_process(sibling, args)));
#else
  (void)argv;
  throw InputError(
      "dasim-train: --device cuda: this build has no CUDA support (DASIM_CUDA=OFF, or the CUDA toolkit, "
      "cuDNN "
      "or NCCL not found at configure time)");
#endif
}
#endif

// The options, or the exit status when there is nothing to train (help, bad arguments).
std::variant<TrainOptions, int> parse_or_exit(int argc, char** argv, int env_rank) {
  try {
    auto parsed = parse_train_options(argc, argv);
    if (!parsed.options) {
      if (env_rank == 0) std::cout << parsed.help;
      return kExitOk;
    }
#ifndef DASIM_TRAIN_CUDA
    if (parsed.options->device == Device::cuda) exec_cuda_sibling(argv);
#endif
    // Before training, not after it: a run that cannot write its results is a bad argument.
    if (!parsed.options->print_plan) {
      check_can_write(parsed.options->output, "dasim-train: -o");
      check_can_write(parsed.options->csv, "dasim-train: --csv");
      if (!parsed.options->profile.empty())
        check_can_write(parsed.options->profile, "dasim-train: --profile");
    }
    return *parsed.options;
  } catch (const InputError& e) {
    if (env_rank == 0) std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
}

// This rank's shard, checked on every rank; the ranks agree on the verdict so that all exit alike.
std::optional<Dataset> load_checked_shard(const TrainOptions& o, int rank, int ranks, MPI_Comm comm) {
  Dataset data;
  int status = kExitOk;
  std::string message;
  try {
    data = load_shard(o, rank, ranks);
    if (data.samples() < 1)
      throw InputError(fmt::format("dasim-train: rank {} got no samples of the data set", rank));
#ifdef DASIM_TRAIN_CUDA
    if (o.device == Device::cuda) {
      const std::string problem = cuda_device_problem();
      if (!problem.empty())
        throw InputError(fmt::format("dasim-train: --device cuda: rank {}: {}", rank, problem));
    }
#endif
  } catch (const InputError& e) {
    message = e.what();
    status = kExitBadInput;
  }
  if (agree(status, comm) == kExitOk) return data;
  // Rank 0's message when it has one (a bad file fails every rank alike: say it once); else each
  // failing rank's own (a shard without samples). One write per line, so lines do not interleave.
  int rank0_status = status;
  mpi_check(MPI_Bcast(&rank0_status, 1, MPI_INT, 0, comm), "MPI_Bcast (status of rank 0)");
  if (!message.empty() && (rank == 0 || rank0_status == kExitOk)) {
    const std::string line = message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  return std::nullopt;
}

TrainOutput train_on_device(const TrainOptions& o, const std::vector<int>& widths, Mlp& model,
                            const Dataset& data, MPI_Comm comm) {
#ifdef DASIM_TRAIN_CUDA
  if (o.device == Device::cuda) {
    std::vector<float> final_weights;
    TrainOutput trained = train_gpu(o, widths, model.weights(), data, comm, final_weights);
    model.weights() = final_weights;
    return trained;
  }
#endif
  (void)widths;
  return train(o, model, data, comm);
}

// --print-plan: the plan of the model the data implies, before (and without) MPI.
int print_plan(const TrainOptions& o) {
  try {
    const Dataset data = load_shard(o, 0, 1);
    std::vector<int> widths{data.features};
    widths.insert(widths.end(), o.hidden.begin(), o.hidden.end());
    widths.push_back(data.classes);
    std::cout << make_plan(o, widths).dump(2) << "\n";
    return kExitOk;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
}

int run(int argc, char** argv) {
  const int env_rank = launcher_rank();
  const auto parsed = parse_or_exit(argc, argv, env_rank);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const TrainOptions& o = std::get<TrainOptions>(parsed);
  if (o.print_plan) return print_plan(o);
  openblas_set_num_threads(o.blas_threads);

  // The watchdog also covers MPI_Init: a peer that dies or hangs while the job starts up must not
  // leave the others waiting there.
  start_watchdog(o.comm_timeout_s, env_rank);
  int provided = 0;
  {
    WatchdogGuard guard("MPI_Init");
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  }
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  // Islands must split the ranks; every rank knows both numbers, so all agree without a message.
  if (schedules::has_islands(o.schedule) && ranks % o.schedule.island_gpus != 0) {
    if (rank == 0)
      std::cerr << fmt::format("dasim-train: --island-ranks: {} ranks do not split into islands of {}\n",
                               ranks, o.schedule.island_gpus);
    MPI_Finalize();
    return kExitBadInput;
  }
  const auto data = load_checked_shard(o, rank, ranks, comm);
  if (!data) {
    MPI_Finalize();
    return kExitBadInput;
  }
  std::vector<int> widths{data->features};
  widths.insert(widths.end(), o.hidden.begin(), o.hidden.end());
  widths.push_back(data->classes);
  Mlp model(widths, o.seed);

  const double t0 = wall_now_s();
  TrainOutput trained;
  try {
    trained = train_on_device(o, widths, model, *data, comm);
  } catch (const RuntimeFailure& e) {  // consistency: every rank alike; CUDA/NCCL: this rank
    std::cerr << "dasim-train: rank " << rank << ": " << e.what() << "\n";
    WatchdogGuard guard("MPI_Finalize");  // a peer that did not fail may never get there
    MPI_Finalize();
    return kExitRuntimeFailure;
  }
  const double wall_time_s = wall_now_s() - t0;

  const Gathered gathered = gather_on_rank0(o, trained, model, comm);
  int status =
      rank == 0 ? write_results(o, widths, model, *data, trained, gathered, ranks, wall_time_s) : kExitOk;
  status = agree(status, comm);
  WatchdogGuard guard("MPI_Finalize");
  MPI_Finalize();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  return run(argc, argv);
}
