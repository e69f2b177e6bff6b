// MPI plumbing of the executor: error checks that end the rank instead of hanging, a watchdog that
// ends the rank when a blocking wait outlives its deadline (a peer died or hangs), and a clock of
// the time collectives are in flight.
//
// Why a watchdog thread: with a dead peer, MPI_Wait and blocking collectives may never return, and
// MPI_ERRORS_RETURN only helps when the library notices. The thread calls no MPI (the library is
// initialised MPI_THREAD_FUNNELED); it prints one line and _exit(1)s, which mpirun turns into the
// end of the whole job.
#pragma once

#include <mpi.h>

namespace dasim::executor {

// Ends the process with status 1 and a one-line message when rc is not MPI_SUCCESS.
void mpi_check(int rc, const char* what);

// Starts the watchdog thread (once). `rank` only labels its message.
void start_watchdog(double timeout_s, int rank);

// While alive, the rank must leave the guarded region within the watchdog timeout.
class WatchdogGuard {
 public:
  explicit WatchdogGuard(const char* what);
  ~WatchdogGuard();
  WatchdogGuard(const WatchdogGuard&) = delete;
  WatchdogGuard& operator=(const WatchdogGuard&) = delete;
};

// Union of the intervals during which at least one collective is in flight, cut at step boundaries.
// Completion is only observed when MPI_Test/MPI_Wait reports it, so the figure is an upper bound at
// the granularity of the polls (one per layer).
class InFlightClock {
 public:
  void started(double now_s);
  void completed(double now_s);
  // In-flight time since the last take(), counting an operation still in flight up to now_s.
  double take(double now_s);

 private:
  int active_ = 0;
  double since_s_ = 0;
  double accumulated_s_ = 0;
};

double wall_now_s();

}  // namespace dasim::executor
