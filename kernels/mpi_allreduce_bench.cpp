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
#include "stats.hpp"

#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Gemm {
  int m = 0, n = 0, k = 0;
  std::unique_ptr<float[]> a, b, c;
  void allocate() {  // small values: C accumulates over the repetitions without overflowing
    a.reset(new float[size_t(m) * k]);
    b.reset(new float[size_t(k) * n]);
    c.reset(new float[size_t(m) * n]);
    std::fill_n(a.get(), size_t(m) * k, 1e-3f);
    std::fill_n(b.get(), size_t(k) * n, 1e-3f);
    std::fill_n(c.get(), size_t(m) * n, 0.0f);
  }
};

struct PollWork {
  double spin_s = 0;
  std::vector<Gemm> gemms;
};

// Seconds of work: a finite number >= 0, the whole text (an infinite spin would never return).
bool parse_seconds(const std::string& text, double& seconds) {
  char* end = nullptr;
  seconds = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && seconds >= 0 && std::isfinite(seconds);
}

// A whole number in [low, high], the whole text.
bool parse_count(const std::string& text, long low, long high, long& count) {
  char* end = nullptr;
  count = std::strtol(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0' && count >= low && count <= high;
}

// One work item: '+'-joined parts, each seconds of spin ("0.0059") or an sgemm shape MxNxK
// ("64x2048x2048", sizes 1..65536), e.g. "0.0016+64x2048x256" (an update, then a layer).
bool parse_poll_work(const std::string& item, PollWork& work) {
  std::stringstream parts(item);
  for (std::string part; std::getline(parts, part, '+');) {
    if (part.find('x') == std::string::npos) {
      double seconds = 0;
      if (!parse_seconds(part, seconds)) return false;
      work.spin_s += seconds;
      continue;
    }
    long dims[3] = {0, 0, 0};
    const char* p = part.c_str();
    for (int d = 0; d < 3; ++d) {
      if (!std::isdigit(static_cast<unsigned char>(*p))) return false;  // strtol would take " +8"
      char* end = nullptr;
      dims[d] = std::strtol(p, &end, 10);
      if (end == p || dims[d] < 1 || dims[d] > 65536 || *end != (d < 2 ? 'x' : '\0')) return false;
      p = end + (d < 2 ? 1 : 0);
    }
    Gemm g;
    g.m = int(dims[0]);
    g.n = int(dims[1]);
    g.k = int(dims[2]);
    work.gemms.push_back(std::move(g));
  }
  return !item.empty() && item.back() != '+';
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long max_bytes = 1L << 26;
  int reps = 20, warmup = 5, large_reps = -1;
  long evict_bytes = 0;
  std::vector<PollWork> poll_work;
  double wait_after_s = 0;
  int free_steps = 0, step_items = 0;
  bool polls_ok = true;
  std::set<long> sizes;
  bool sizes_ok = true, nonblocking = false, in_place = false, mean = false;
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--nonblocking" || flag == "--in-place" || flag == "--mean") {  // flags without a value
      (flag == "--nonblocking" ? nonblocking : flag == "--in-place" ? in_place : mean) = true;
      --i;
      continue;
    }
    if (i + 1 == argc) {
      std::fprintf(stderr, "dasim-mpi-allreduce-bench: %s needs a value\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (flag == "--max-bytes") {
      max_bytes = std::atol(argv[i + 1]);
    } else if (flag == "--reps") {
      reps = std::atoi(argv[i + 1]);
    } else if (flag == "--large-reps") {
      large_reps = std::atoi(argv[i + 1]);
    } else if (flag == "--poll-intervals") {  // comma-separated work before each MPI_Test
      const std::string text = argv[i + 1];
      std::stringstream list(text);
      for (std::string item; std::getline(list, item, ',');) {
        poll_work.emplace_back();
        polls_ok = polls_ok && parse_poll_work(item, poll_work.back());
      }
      polls_ok = polls_ok && !text.empty() && text.back() != ',';  // getline drops a last empty item
    } else if (flag == "--free-steps") {  // free-running: steps of the same work between averages
      long steps = 0;
      polls_ok = parse_count(argv[i + 1], 0, 1000, steps) && polls_ok;
      free_steps = static_cast<int>(steps);
    } else if (flag == "--step-items") {  // how many --poll-intervals items make one step
      long items = 0;
      polls_ok = parse_count(argv[i + 1], 1, std::numeric_limits<long>::max(), items) && polls_ok;
      step_items = static_cast<int>(std::min(items, 1000000L));
    } else if (flag == "--wait-after") {  // seconds of work between the last MPI_Test and MPI_Wait
      polls_ok = parse_seconds(argv[i + 1], wait_after_s) && polls_ok;
    } else if (flag == "--evict") {
      evict_bytes = std::atol(argv[i + 1]);
    } else if (flag == "--warmup") {
      warmup = std::atoi(argv[i + 1]);
    } else if (flag == "--sizes") {  // comma-separated byte counts, multiples of 4 (floats)
      std::stringstream list(argv[i + 1]);
      for (std::string item; std::getline(list, item, ',');) {
        const long bytes = std::atol(item.c_str());
        sizes_ok = sizes_ok && bytes >= 4 && bytes % 4 == 0;
        sizes.insert(bytes);
      }
    } else {
      std::fprintf(stderr, "dasim-mpi-allreduce-bench: unknown option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  // Polled: report each rank's own time inside MPI calls (mean over ranks), not completion.
  const bool polled = !poll_work.empty() || wait_after_s > 0 || free_steps > 0 || step_items > 0;
  if (max_bytes < 8 || reps < 1 || warmup < 0 || large_reps == 0 || large_reps < -1 || !sizes_ok ||
      evict_bytes < 0 || !polls_ok || (polled && !nonblocking)) {
    std::fprintf(stderr,
                 "dasim-mpi-allreduce-bench: need --max-bytes >= 8, --reps >= 1, --large-reps >= 1, "
                 "--warmup >= 0, --evict >= 0, --sizes of multiples of 4 bytes, --poll-intervals of "
                 "seconds >= 0 or sgemm shapes MxNxK[+MxNxK...] of positive sizes, --wait-after of seconds "
                 ">= 0, --free-steps 0..1000, --step-items >= 1 (all with --nonblocking)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (large_reps < 0) large_reps = std::max(3, reps / 4);
  for (long bytes = 8; bytes <= max_bytes; bytes *= 2) sizes.insert(bytes);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<float> send(static_cast<size_t>(*sizes.rbegin() / 4), 1.0f), recv(send.size(), 0.0f);
  // One local step of --free-steps: the first --step-items work items (all by default).
  const size_t one_step = step_items > 0 ? std::min(size_t(step_items), poll_work.size()) : poll_work.size();
  if (rank == 0) {
    if (polled) {
      double spin_s = 0;
      size_t gemms = 0;
      for (const auto& w : poll_work) {
        spin_s += w.spin_s;
        gemms += w.gemms.size();
      }
      std::printf(
          "# dasim MPI_Iallreduce polled %zu times over %.3f ms of spin and %zu sgemm calls, then MPI_Wait "
          "after %.3f ms more, %d free steps of %zu work items between averages: time inside MPI calls "
          "(mean over ranks), MPI_FLOAT MPI_SUM, %d ranks\n",
          poll_work.size(), spin_s * 1e3, gemms, wait_after_s * 1e3, free_steps, one_step, size);
    } else {
      std::printf("# dasim %s latency test, MPI_FLOAT MPI_SUM, %d ranks\n",
                  nonblocking ? "MPI_Iallreduce + MPI_Wait" : "MPI_Allreduce", size);
    }
    std::printf("# Size  %s Latency(us)  Min Latency(us)  Max Latency(us)  Stddev(us)  Iterations\n",
                mean ? "Avg" : "Median");
  }
  // A training step's compute evicts the gradients from the caches before they are averaged;
  // writing --evict bytes of scratch before each repetition does the same to the message buffers.
  std::vector<char> scratch(static_cast<size_t>(evict_bytes));
  unsigned char stamp = 0;
  auto evict = [&] {
    if (!scratch.empty()) std::memset(scratch.data(), ++stamp, scratch.size());
  };
  // The compute between two polls. Spin: busy on the core, not on memory (a memory-streaming
  // stand-in took the bandwidth the peer's copies need: 7.2 and 4.0 ms on the two ranks at 19 MB
  // against 4.0-4.4 and 3.0-3.7 ms in dasim-train). sgemm: the layers themselves, with their cache
  // and memory traffic, which the spin lacks (3.2 ms per rank against dasim-train's 3.9 ms).
  openblas_set_num_threads(1);  // one core per rank, as dasim-train runs by default
  try {
    for (auto& w : poll_work)
      for (auto& g : w.gemms) g.allocate();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "dasim-mpi-allreduce-bench: --poll-intervals: not enough memory for the sgemm operands\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto spin_for = [](double seconds) {
    const double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until) {
    }
  };
  auto compute = [&](PollWork& w) {
    spin_for(w.spin_s);
    for (auto& g : w.gemms)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g.m, g.n, g.k, 1.0f, g.a.get(), g.k, g.b.get(),
                  g.n, 1.0f, g.c.get(), g.n);
  };
  // One allreduce; returns the time spent inside MPI calls. Blocking, or non-blocking with
  // an MPI_Test after each of --poll-intervals before the MPI_Wait, as a trainer that polls
  // between layers: a host-progressed MPI does its copies and reductions inside those calls.
  auto allreduce = [&](int count) {
    const void* source = in_place ? MPI_IN_PLACE : send.data();
    double start = MPI_Wtime();
    if (!nonblocking) {
      MPI_Allreduce(source, recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      return MPI_Wtime() - start;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(source, recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
    double inside = MPI_Wtime() - start;
    for (auto& work : poll_work) {
      compute(work);
      int done = 0;
      start = MPI_Wtime();
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      inside += MPI_Wtime() - start;
    }
    spin_for(wait_after_s);
    start = MPI_Wtime();
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return inside + MPI_Wtime() - start;
  };
  for (const long bytes : sizes) {
    int count = static_cast<int>(bytes / 4);
    int n_reps = bytes >= (1L << 22) ? large_reps : reps;
    // --free-steps: the ranks run on as a trainer does, each repetition followed by that many steps
    // of the same work without MPI calls, and meet only inside the collectives, so they drift
    // apart as their cores allow; otherwise every repetition starts from evicted caches together.
    auto repetition = [&] {
      if (free_steps == 0) {
        evict();
        MPI_Barrier(MPI_COMM_WORLD);
      }
      const double inside = allreduce(count);
      for (int step = 0; step < free_steps; ++step) {  // one step: the first --step-items items
        for (size_t w = 0; w < one_step; ++w) compute(poll_work[w]);
        spin_for(wait_after_s);
      }
      return inside;
    };
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warmup; ++i) repetition();
    std::vector<double> local(static_cast<size_t>(n_reps)), across(local.size());
    for (int r = 0; r < n_reps; ++r) local[r] = repetition();
    // Blocking: the slowest rank's time, when the collective is complete everywhere. Polled: the
    // mean over ranks of the time each spent inside MPI, what the collective cost each rank's core.
    MPI_Reduce(local.data(), across.data(), n_reps, MPI_DOUBLE, polled ? MPI_SUM : MPI_MAX, 0,
               MPI_COMM_WORLD);
    if (polled)
      for (double& t : across) t /= size;
    if (rank == 0) {
      dasim::kernels::Stats s = dasim::kernels::summarize(across);
      double sum = 0;
      for (double t : across) sum += t;
      std::printf("%ld %.3f %.3f %.3f %.3f %d\n", bytes,
                  (mean ? sum / double(across.size()) : s.median_s) * 1e6, s.min_s * 1e6, s.max_s * 1e6,
                  s.stddev_s * 1e6, s.reps);
    }
  }
  MPI_Finalize();
  return 0;
}
