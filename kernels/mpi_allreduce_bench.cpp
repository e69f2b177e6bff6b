// dasim-mpi-allreduce-bench: times MPI_Allreduce (float, sum) over a message-size sweep, 8 bytes
// to --max-bytes in powers of two plus any --sizes (e.g. the exact messages a training run sends),
// and prints an OSU-style table on rank 0, sizes ascending (--nonblocking: MPI_Iallreduce then
// MPI_Wait, the call an overlapping trainer makes; Open MPI implements it separately, libnbc):
//   # Size  Median Latency(us)  Min Latency(us)  Max Latency(us)  Stddev(us)  Iterations
// Each repetition starts after a barrier; its time is the slowest rank's, which is when the
// collective is complete everywhere; --evict BYTES writes that much scratch memory before each one.
// --poll-intervals W1,W2,... (with --nonblocking): work W1, MPI_Test, W2, MPI_Test, ..., then
// --wait-after seconds of work and MPI_Wait, reporting the mean over ranks of the time inside MPI
// calls (a trainer's polls between layers: the work items are its layers, the work after the last
// poll its optimizer update). A work item is seconds of CPU-bound spin, or the layer's own sgemm
// calls MxNxK (C[MxN] += A[MxK] B[KxN], one thread), or both joined by '+': 0.0016+64x2048x256.
// --free-steps N: no barrier or eviction between repetitions; after each MPI_Wait, N more steps
// without MPI calls (the local steps of a period), so the ranks drift as in training. A step is the
// first --step-items work items (default all) and the --wait-after work: with d polled steps in
// --poll-intervals, --step-items is one step's share of them.
// --mean: the second column is the mean over the repetitions (OSU's "Avg Latency"), not the
// median: what a trainer's mean step time accumulates, its slow repetitions included.
// Messages of 4 MiB and more get --large-reps repetitions (default a quarter of --reps, at least 3)
// so a full sweep stays within a minute.
// `dasim calibrate --device cpu` runs it under mpirun and `dasim fit-links` reads the same table.
#include "mpi_allreduce_bench_options.hpp"
#include "stats.hpp"

#include <cblas.h>
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using dasim::kernels::BenchOptions;
using dasim::kernels::PollWork;

namespace {

void print_header(const BenchOptions& o, int ranks) {
  if (o.polled()) {
    double spin_s = 0;
    size_t gemms = 0;
    for (const auto& w : o.poll_work) {
      spin_s += w.spin_s;
      gemms += w.gemms.size();
    }
    std::printf(
        "# dasim MPI_Iallreduce polled %zu times over %.3f ms of spin and %zu sgemm calls, then MPI_Wait "
        "after %.3f ms more, %d free steps of %zu work items between averages: time inside MPI calls "
        "(mean over ranks), MPI_FLOAT MPI_SUM, %d ranks\n",
        o.poll_work.size(), spin_s * 1e3, gemms, o.wait_after_s * 1e3, o.free_steps, o.one_step(), ranks);
  } else {
    std::printf("# dasim %s latency test, MPI_FLOAT MPI_SUM, %d ranks\n",
                o.nonblocking ? "MPI_Iallreduce + MPI_Wait" : "MPI_Allreduce", ranks);
  }
  std::printf("# Size  %s Latency(us)  Min Latency(us)  Max Latency(us)  Stddev(us)  Iterations\n",
              o.mean ? "Avg" : "Median");
}

void spin_for(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

// The compute between two polls. Spin: busy on the core, not on memory (a memory-streaming
// stand-in took the bandwidth the peer's copies need: 7.2 and 4.0 ms on the two ranks at 19 MB
// against 4.0-4.4 and 3.0-3.7 ms in dasim-train). sgemm: the layers themselves, with their cache
// and memory traffic, which the spin lacks (3.2 ms per rank against dasim-train's 3.9 ms).
void compute(PollWork& w) {
  spin_for(w.spin_s);
  for (auto& g : w.gemms)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g.m, g.n, g.k, 1.0f, g.a.get(), g.k, g.b.get(),
                g.n, 1.0f, g.c.get(), g.n);
}

class Sweep {
 public:
  explicit Sweep(BenchOptions& o)
      : o_(o),
        send_(static_cast<size_t>(*o.sizes.rbegin() / 4), 1.0f),
        recv_(send_.size(), 0.0f),
        scratch_(static_cast<size_t>(o.evict_bytes)) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  }

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }

  // Times `bytes` and prints its row on rank 0.
  void measure(long bytes) {
    const int count = static_cast<int>(bytes / 4);
    const int n_reps = bytes >= (1L << 22) ? o_.large_reps : o_.reps;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < o_.warmup; ++i) repetition(count);
    std::vector<double> local(static_cast<size_t>(n_reps)), across(local.size());
    for (int r = 0; r < n_reps; ++r) local[r] = repetition(count);
    // Blocking: the slowest rank's time, when the collective is complete everywhere. Polled: the
    // mean over ranks of the time each spent inside MPI, what the collective cost each rank's core.
    MPI_Reduce(local.data(), across.data(), n_reps, MPI_DOUBLE, o_.polled() ? MPI_SUM : MPI_MAX, 0,
               MPI_COMM_WORLD);
    if (o_.polled())
      for (double& t : across) t /= ranks_;
    if (rank_ != 0) return;
    const dasim::kernels::Stats s = dasim::kernels::summarize(across);
    double sum = 0;
    for (double t : across) sum += t;
    std::printf("%ld %.3f %.3f %.3f %.3f %d\n", bytes,
                (o_.mean ? sum / double(across.size()) : s.median_s) * 1e6, s.min_s * 1e6, s.max_s * 1e6,
                s.stddev_s * 1e6, s.reps);
  }

 private:
  // A training step's compute evicts the gradients from the caches before they are averaged;
  // writing --evict bytes of scratch before each repetition does the same to the message buffers.
  void evict() {
    if (!scratch_.empty()) std::memset(scratch_.data(), ++stamp_, scratch_.size());
  }

  // One allreduce; returns the time spent inside MPI calls. Blocking, or non-blocking with
  // an MPI_Test after each of --poll-intervals before the MPI_Wait, as a trainer that polls
  // between layers: a host-progressed MPI does its copies and reductions inside those calls.
  double allreduce(int count) {
    const void* source = o_.in_place ? MPI_IN_PLACE : send_.data();
    double start = MPI_Wtime();
    if (!o_.nonblocking) {
      MPI_Allreduce(source, recv_.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      return MPI_Wtime() - start;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(source, recv_.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
    double inside = MPI_Wtime() - start;
    for (auto& work : o_.poll_work) {
      compute(work);
      int done = 0;
      start = MPI_Wtime();
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      inside += MPI_Wtime() - start;
    }
    spin_for(o_.wait_after_s);
    start = MPI_Wtime();
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return inside + MPI_Wtime() - start;
  }

  // --free-steps: the ranks run on as a trainer does, each repetition followed by that many steps
  // of the same work without MPI calls, and meet only inside the collectives, so they drift apart
  // as their cores allow; otherwise every repetition starts from evicted caches together.
  double repetition(int count) {
    if (o_.free_steps == 0) {
      evict();
      MPI_Barrier(MPI_COMM_WORLD);
    }
    const double inside = allreduce(count);
    for (int step = 0; step < o_.free_steps; ++step) {  // one step: the first --step-items items
      for (size_t w = 0; w < o_.one_step(); ++w) compute(o_.poll_work[w]);
      spin_for(o_.wait_after_s);
    }
    return inside;
  }

  BenchOptions& o_;
  std::vector<float> send_, recv_;
  std::vector<char> scratch_;
  unsigned char stamp_ = 0;
  int rank_ = 0, ranks_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  if (dasim::kernels::wants_help(argc, argv)) {  // before MPI: help needs no mpirun
    std::fputs(dasim::kernels::bench_usage(), stdout);
    return 0;
  }
  MPI_Init(&argc, &argv);
  std::string error;
  BenchOptions o = dasim::kernels::parse_bench_options(argc, argv, error);
  if (!error.empty()) {
    std::fprintf(stderr, "dasim-mpi-allreduce-bench: %s\n", error.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  openblas_set_num_threads(1);  // one core per rank, as dasim-train runs by default
  try {
    for (auto& w : o.poll_work)
      for (auto& g : w.gemms) g.allocate();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "dasim-mpi-allreduce-bench: --poll-intervals: not enough memory for the sgemm operands\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Sweep sweep(o);
  if (sweep.rank() == 0) print_header(o, sweep.ranks());
  for (const long bytes : o.sizes) sweep.measure(bytes);
  MPI_Finalize();
  return 0;
}
