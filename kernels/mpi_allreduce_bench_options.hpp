// The command line of dasim-mpi-allreduce-bench (see mpi_allreduce_bench.cpp for what each option
// does), parsed strictly: a work item, count or size that is not entirely valid is refused, since a
// benchmark that quietly measured something else would calibrate the simulator wrongly.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dasim::kernels {

// C[MxN] += A[MxK] B[KxN] on one thread: a layer's own GEMM as poll work.
struct Gemm {
  int m = 0, n = 0, k = 0;
  std::unique_ptr<float[]> a, b, c;
  void allocate();  // small values: C accumulates over the repetitions without overflowing
};

// The compute between two polls: seconds of spin and sgemm calls.
struct PollWork {
  double spin_s = 0;
  std::vector<Gemm> gemms;
};

struct BenchOptions {
  long max_bytes = 1L << 26;
  int reps = 20, warmup = 5, large_reps = -1;  // large_reps -1: a quarter of reps, at least 3
  long evict_bytes = 0;
  std::vector<PollWork> poll_work;
  double wait_after_s = 0;
  int free_steps = 0, step_items = 0;
  std::set<long> sizes;  // the sweep: powers of two from 8 B to max_bytes plus --sizes
  bool nonblocking = false, in_place = false, mean = false;

  // Polled: report each rank's own time inside MPI calls (mean over ranks), not completion.
  bool polled() const { return !poll_work.empty() || wait_after_s > 0 || free_steps > 0 || step_items > 0; }
  // One local step of --free-steps: the first --step-items work items (all by default).
  size_t one_step() const;
};

// --help's text: every option with its default (stdout, exit 0, before MPI starts).
const char* bench_usage();
bool wants_help(int argc, char** argv);  // --help or -h anywhere on the line

// The options, or an empty error: on failure `error` holds the one line to print (exit 2).
BenchOptions parse_bench_options(int argc, char** argv, std::string& error);

}  // namespace dasim::kernels
