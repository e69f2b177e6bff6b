#include "mpi_allreduce_bench_options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace dasim::kernels {

void Gemm::allocate() {
  a.reset(new float[size_t(m) * k]);
  b.reset(new float[size_t(k) * n]);
  c.reset(new float[size_t(m) * n]);
  std::fill_n(a.get(), size_t(m) * k, 1e-3f);
  std::fill_n(b.get(), size_t(k) * n, 1e-3f);
  std::fill_n(c.get(), size_t(m) * n, 0.0f);
}

size_t BenchOptions::one_step() const {
  return step_items > 0 ? std::min(size_t(step_items), poll_work.size()) : poll_work.size();
}

namespace {

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

const char* bench_usage() {
  return "Usage: mpirun -np N dasim-mpi-allreduce-bench [OPTIONS]\n"
         "Times MPI_Allreduce (float, sum) over 8 bytes .. --max-bytes in powers of two plus --sizes;\n"
         "rank 0 prints an OSU-style table (size, median/min/max latency in us, stddev, iterations).\n"
         "Options:\n"
         "  --max-bytes B        largest power-of-two size (default 67108864)\n"
         "  --sizes B1,B2,...    extra sizes, multiples of 4 bytes (default none)\n"
         "  --reps N             repetitions per size (default 20)\n"
         "  --large-reps N       repetitions from 4 MiB up (default a quarter of --reps, at least 3)\n"
         "  --warmup N           untimed repetitions per size (default 5)\n"
         "  --evict B            scratch bytes written before each repetition (default 0)\n"
         "  --mean               second column: mean over repetitions, not median\n"
         "  --nonblocking        MPI_Iallreduce + MPI_Wait instead of MPI_Allreduce\n"
         "  --in-place           MPI_IN_PLACE buffers\n"
         "  --poll-intervals W,..  with --nonblocking: work W (seconds of spin and/or sgemm MxNxK,\n"
         "                       joined by '+') then MPI_Test, per item; reports time inside MPI\n"
         "  --wait-after S       seconds of work between the last MPI_Test and MPI_Wait (default 0)\n"
         "  --free-steps N       0..1000 steps without MPI calls after each MPI_Wait (default 0)\n"
         "  --step-items N       --poll-intervals items per free step (default all)\n"
         "  -h, --help           this text\n";
}

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") return true;
  return false;
}

// Over 60 lines because it is one flat table of options, each a line or two; split, the table would
// no longer read as the command line it is.
BenchOptions parse_bench_options(int argc, char** argv, std::string& error) {
  BenchOptions o;
  bool polls_ok = true, sizes_ok = true;
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--nonblocking" || flag == "--in-place" || flag == "--mean") {  // flags without a value
      (flag == "--nonblocking" ? o.nonblocking : flag == "--in-place" ? o.in_place : o.mean) = true;
      --i;
      continue;
    }
    if (i + 1 == argc) {
      error = std::string(argv[i]) + " needs a value";
      return o;
    }
    if (flag == "--max-bytes") {
      o.max_bytes = std::atol(argv[i + 1]);
    } else if (flag == "--reps") {
      o.reps = std::atoi(argv[i + 1]);
    } else if (flag == "--large-reps") {
      o.large_reps = std::atoi(argv[i + 1]);
    } else if (flag == "--poll-intervals") {  // comma-separated work before each MPI_Test
      const std::string text = argv[i + 1];
      std::stringstream list(text);
      for (std::string item; std::getline(list, item, ',');) {
        o.poll_work.emplace_back();
        polls_ok = polls_ok && parse_poll_work(item, o.poll_work.back());
      }
      polls_ok = polls_ok && !text.empty() && text.back() != ',';  // getline drops a last empty item
    } else if (flag == "--free-steps") {  // free-running: steps of the same work between averages
      long steps = 0;
      polls_ok = parse_count(argv[i + 1], 0, 1000, steps) && polls_ok;
      o.free_steps = static_cast<int>(steps);
    } else if (flag == "--step-items") {  // how many --poll-intervals items make one step
      long items = 0;
      polls_ok = parse_count(argv[i + 1], 1, std::numeric_limits<long>::max(), items) && polls_ok;
      o.step_items = static_cast<int>(std::min(items, 1000000L));
    } else if (flag == "--wait-after") {  // seconds of work between the last MPI_Test and MPI_Wait
      polls_ok = parse_seconds(argv[i + 1], o.wait_after_s) && polls_ok;
    } else if (flag == "--evict") {
      o.evict_bytes = std::atol(argv[i + 1]);
    } else if (flag == "--warmup") {
      o.warmup = std::atoi(argv[i + 1]);
    } else if (flag == "--sizes") {  // comma-separated byte counts, multiples of 4 (floats)
      std::stringstream list(argv[i + 1]);
      for (std::string item; std::getline(list, item, ',');) {
        const long bytes = std::atol(item.c_str());
        sizes_ok = sizes_ok && bytes >= 4 && bytes % 4 == 0;
        o.sizes.insert(bytes);
      }
    } else {
      error = std::string("unknown option ") + argv[i];
      return o;
    }
  }
  if (o.max_bytes < 8 || o.reps < 1 || o.warmup < 0 || o.large_reps == 0 || o.large_reps < -1 || !sizes_ok ||
      o.evict_bytes < 0 || !polls_ok || (o.polled() && !o.nonblocking)) {
    error = std::string(
        "need --max-bytes >= 8, --reps >= 1, --large-reps >= 1, "
        "--warmup >= 0, --evict >= 0, --sizes of multiples of 4 bytes, --poll-intervals of "
        "seconds >= 0 or sgemm shapes MxNxK[+MxNxK...] of positive sizes, --wait-after of seconds "
        ">= 0, --free-steps 0..1000, --step-items >= 1 (all with --nonblocking)");
    return o;
  }
  if (o.large_reps < 0) o.large_reps = std::max(3, o.reps / 4);
  for (long bytes = 8; bytes <= o.max_bytes; bytes *= 2) o.sizes.insert(bytes);
  return o;
}

}  // namespace dasim::kernels
