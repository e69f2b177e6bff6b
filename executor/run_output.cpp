#include "run_output.hpp"

#include "comm.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "reference.hpp"
#include "results/result_row.hpp"
#include "shard.hpp"
#include "summary.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>

namespace dasim::executor {
namespace {

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

std::string mpi_library_version() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string text(library, length);
  while (!text.empty() && (text.back() == '\0' || std::isspace(static_cast<unsigned char>(text.back()))))
    text.pop_back();
  return text;
}

}  // namespace

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

}  // namespace dasim::executor
