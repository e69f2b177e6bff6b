// dasim-mpi-allreduce-bench: times MPI_Allreduce (float, sum) over a message-size sweep, 8 bytes
// to --max-bytes in powers of two, and prints an OSU-style table on rank 0:
//   # Size  Median Latency(us)  Min Latency(us)  Max Latency(us)  Stddev(us)  Iterations
// Each repetition starts after a barrier; its time is the slowest rank's, which is when the
// collective is complete everywhere. `dasim calibrate --device cpu` runs it under mpirun and
// `dasim fit-links` reads the same table.
#include "stats.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long max_bytes = 1L << 26;
  int reps = 20, warmup = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--max-bytes")
      max_bytes = std::atol(argv[i + 1]);
    else if (flag == "--reps")
      reps = std::atoi(argv[i + 1]);
    else if (flag == "--warmup")
      warmup = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "dasim-mpi-allreduce-bench: unknown option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (max_bytes < 8 || reps < 1 || warmup < 0) {
    std::fprintf(stderr, "dasim-mpi-allreduce-bench: need --max-bytes >= 8, --reps >= 1, --warmup >= 0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<float> send(static_cast<size_t>(max_bytes / 4), 1.0f), recv(send.size(), 0.0f);
  if (rank == 0) {
    std::printf("# dasim MPI_Allreduce latency test, MPI_FLOAT MPI_SUM, %d ranks\n", size);
    std::printf("# Size  Median Latency(us)  Min Latency(us)  Max Latency(us)  Stddev(us)  Iterations\n");
  }
  for (long bytes = 8; bytes <= max_bytes; bytes *= 2) {
    int count = static_cast<int>(bytes / 4);
    // Large messages get fewer repetitions so the full sweep stays within a minute.
    int n_reps = bytes >= (1L << 22) ? std::max(3, reps / 4) : reps;
    for (int i = 0; i < warmup; ++i)
      MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    std::vector<double> local(static_cast<size_t>(n_reps)), slowest(local.size());
    for (int r = 0; r < n_reps; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double start = MPI_Wtime();
      MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      local[r] = MPI_Wtime() - start;
    }
    MPI_Reduce(local.data(), slowest.data(), n_reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      dasim::kernels::Stats s = dasim::kernels::summarize(slowest);
      std::printf("%ld %.3f %.3f %.3f %.3f %d\n", bytes, s.median_s * 1e6, s.min_s * 1e6, s.max_s * 1e6,
                  s.stddev_s * 1e6, s.reps);
    }
  }
  MPI_Finalize();
  return 0;
}
