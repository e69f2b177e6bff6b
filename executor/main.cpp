// dasim-train: `mpirun -np N dasim-train [options]` trains an MLP data-parallel over MPI with sgd,
// local_sgd or dasgd and writes measured result rows in dasim's schema (see docs/executor.md).
// The fixed shape: parse (before MPI, so bad arguments end every rank alike), initialise MPI,
// load the shard (ranks agree on any failure), train, gather, rank 0 writes.
#include "comm.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "options.hpp"
#include "reference.hpp"
#include "results/result_row.hpp"
#include "summary.hpp"
#include "trainer.hpp"
#ifdef DASIM_TRAIN_CUDA
#include "cuda/gpu_trainer.hpp"
#endif

#include <cblas.h>
#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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

Dataset load_shard(const TrainOptions& o, int rank, int ranks) {
  if (!o.mnist_images.empty()) return load_idx_shard(o.mnist_images, o.mnist_labels, rank, ranks);
  return make_synthetic_shard(o.synthetic, rank, ranks);
}

std::vector<double> step_compute_s(const std::vector<StepRecord>& steps) {
  std::vector<double> compute;
  for (const auto& s : steps) compute.push_back(s.compute_s);
  return compute;
}

// Rank 0 reruns the schedule serially on every rank's shard and compares weights and losses.
nlohmann::ordered_json verify_against_reference(const TrainOptions& o, const std::vector<int>& widths,
                                                int ranks, const std::vector<float>& all_weights,
                                                const std::vector<double>& loss_curve) {
  std::vector<Dataset> shards;
  for (int r = 0; r < ranks; ++r) shards.push_back(load_shard(o, r, ranks));
  const auto ref = run_reference(o.schedule, widths, o.seed, shards, o.batch, o.lr, o.steps);
  const size_t params = ref.weights.front().size();
  double max_weight_diff = 0, max_loss_diff = 0;
  bool ok = true;
  for (int r = 0; r < ranks; ++r)
    for (size_t i = 0; i < params; ++i) {
      const double a = all_weights[r * params + i], b = ref.weights[r][i];
      max_weight_diff = std::max(max_weight_diff, std::abs(a - b));
      ok = ok && std::abs(a - b) <= 1e-5 + 1e-5 * std::abs(b);
    }
  for (size_t k = 0; k < loss_curve.size(); ++k) {
    max_loss_diff = std::max(max_loss_diff, std::abs(loss_curve[k] - ref.mean_loss[k]));
    ok = ok && std::abs(loss_curve[k] - ref.mean_loss[k]) <= 1e-5 + 1e-5 * std::abs(ref.mean_loss[k]);
  }
  return {{"reference", "serial n-replica rerun of the schedule on rank 0"},
          {"max_weight_abs_diff", max_weight_diff},
          {"max_loss_abs_diff", max_loss_diff},
          {"tolerance", "1e-5 absolute + 1e-5 relative"},
          {"passed", ok}};
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&t));
  return text;
}

// The options, or the exit status when there is nothing to train (help, bad arguments).
std::variant<TrainOptions, int> parse_or_exit(int argc, char** argv, int env_rank) {
  try {
    auto parsed = parse_train_options(argc, argv);
    if (!parsed.options) {
      if (env_rank == 0) std::cout << parsed.help;
      return kExitOk;
    }
#ifndef DASIM_TRAIN_CUDA
    if (parsed.options->device == Device::cuda)
      throw InputError(
          "dasim-train: --device cuda: this build has no CUDA support (CUDA toolkit, cuDNN or NCCL not found "
          "at "
          "configure time)");
#endif
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
    std::cerr << e.what() << "\n";
    status = kExitBadInput;
  }
  if (agree(status, comm) != kExitOk) return std::nullopt;
  return data;
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

// What rank 0 gathers from every rank: step records, drain time, host name, and (--verify) weights.
struct Gathered {
  std::vector<std::vector<StepRecord>> per_rank;
  std::vector<double> drain_s;
  std::vector<std::string> hosts;
  std::vector<float> all_weights;
};

Gathered gather_on_rank0(const TrainOptions& o, const TrainOutput& trained, const Mlp& model, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<double> mine;
  for (const auto& s : trained.steps) pack(s, mine);
  mine.push_back(trained.drain_s);  // after the steps: unpack_step_records() reads only those
  std::vector<double> all(rank == 0 ? mine.size() * ranks : 0);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  std::vector<char> hosts(rank == 0 ? size_t{MPI_MAX_PROCESSOR_NAME} * ranks : 0);
  Gathered g;
  g.all_weights.resize(o.verify && rank == 0 ? model.weights().size() * ranks : 0);
  {
    WatchdogGuard guard("MPI_Gather (results)");
    mpi_check(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                         static_cast<int>(mine.size()), MPI_DOUBLE, 0, comm),
              "MPI_Gather (step records)");
    mpi_check(MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, 0, comm),
              "MPI_Gather (host names)");
    if (o.verify)
      mpi_check(MPI_Gather(model.weights().data(), static_cast<int>(model.param_count()), MPI_FLOAT,
                           g.all_weights.data(), static_cast<int>(model.param_count()), MPI_FLOAT, 0, comm),
                "MPI_Gather (weights)");
  }
  if (rank != 0) return g;
  for (int r = 0; r < ranks; ++r) {
    g.per_rank.push_back(unpack_step_records(all.data() + r * mine.size(), o.steps));
    g.drain_s.push_back(all[(r + 1) * mine.size() - 1]);
    g.hosts.emplace_back(hosts.data() + size_t{MPI_MAX_PROCESSOR_NAME} * r);
  }
  return g;
}

std::string mpi_library_version() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string text(library, length);
  while (!text.empty() && (text.back() == '\0' || std::isspace(static_cast<unsigned char>(text.back()))))
    text.pop_back();
  return text;
}

// Rank 0: verifies (--verify) and writes the JSON, the CSV row and the --profile workload.
int write_results(const TrainOptions& o, const std::vector<int>& widths, const Mlp& model,
                  const Dataset& data, const TrainOutput& trained, const Gathered& g, int ranks,
                  double wall_time_s) {
  RunDescription run;
  run.options = o;
  run.widths = widths;
  run.params = model.param_count();
  run.ranks = ranks;
  run.hosts = g.hosts;
  run.mpi_library = mpi_library_version();
  run.blas =
      o.device == Device::cuda ? std::string("cuBLAS + cuDNN (NCCL collectives)") : openblas_get_config();
  run.dataset = data.description;
  run.buckets = trained.buckets;
  run.consistency_checks = trained.consistency_checks;
  run.drain_s = g.drain_s;
  int status = kExitOk;
  try {
    if (o.verify) {
      run.verify = verify_against_reference(o, widths, ranks, g.all_weights,
                                            mean_over_ranks(g.per_rank, &StepRecord::loss));
      if (!run.verify["passed"].get<bool>()) {
        std::cerr << "dasim-train: --verify: MPI run differs from the serial reference: " << run.verify.dump()
                  << "\n";
        status = kExitRuntimeFailure;
      }
    }
    const auto row = make_result_row(run, g.per_rank);
    write_file_atomically(o.output, make_output(run, g.per_rank, wall_time_s).dump(2) + "\n");
    write_file_atomically(o.csv, results::to_csv({row}));
    if (!o.profile.empty())
      write_file_atomically(
          o.profile, make_profile(widths, o.batch, o.warmup_steps, trained.forward_s, trained.backward_s,
                                  step_compute_s(trained.steps),
                                  fmt::format("dasim-train --profile on {}, {}", run.hosts[0], today()))
                             .dump(2) +
                         "\n");
    if (!o.quiet)
      std::fprintf(stderr, "dasim-train: %s %d ranks: step %.3f ms, exposed comm %.3f ms, wrote %s\n",
                   row.schedule.c_str(), ranks, row.iter_time_s * 1e3, row.exposed_comm_s * 1e3,
                   o.output.c_str());
  } catch (const std::exception& e) {
    std::cerr << "dasim-train: " << e.what() << "\n";
    status = kExitRuntimeFailure;
  }
  return status;
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
