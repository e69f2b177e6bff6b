// MPI error checks, the blocking-wait watchdog and the in-flight clock (see comm.hpp).
#include "comm.hpp"

#include "watchdog_clock.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace dasim::executor {
namespace {

std::atomic<int64_t> g_deadline_ns{0};  // 0: no guarded wait in progress
std::atomic<const char*> g_what{""};
double g_timeout_s = 20;
int g_rank = 0;

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

double wall_now_s() {
  return static_cast<double>(steady_ns()) * 1e-9;
}

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  std::fprintf(stderr, "dasim-train: rank %d: %s failed: %.*s (a peer rank may have died); exiting\n", g_rank,
               what, length, text);
  std::fflush(stderr);
  _exit(1);
}

void start_watchdog(double timeout_s, int rank) {
  static bool started = false;
  if (started) return;
  started = true;
  g_timeout_s = timeout_s;
  g_rank = rank;
  std::thread([] {
    constexpr int64_t kTickNs = 100'000'000;
    int64_t last_tick = steady_ns();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(kTickNs));
      const int64_t now = steady_ns();
      int64_t deadline = g_deadline_ns.load();
      // This process's own stop is not the peers' fault (watchdog_clock.hpp). A guard that ends or
      // starts meanwhile wins: its store is newer than the deadline read here.
      const int64_t moved = deadline_after_tick(deadline, now - last_tick, kTickNs);
      if (moved != deadline && g_deadline_ns.compare_exchange_strong(deadline, moved)) deadline = moved;
      last_tick = now;
      if (deadline != 0 && now > deadline) {
        std::fprintf(
            stderr,
            "dasim-train: rank %d: %s did not complete within %g s (a peer rank died or hangs); exiting\n",
            g_rank, g_what.load(), g_timeout_s);
        std::fflush(stderr);
        _exit(1);
      }
    }
  }).detach();
}

WatchdogGuard::WatchdogGuard(const char* what) {
  g_what.store(what);
  g_deadline_ns.store(steady_ns() + static_cast<int64_t>(g_timeout_s * 1e9));
}

WatchdogGuard::~WatchdogGuard() {
  g_deadline_ns.store(0);
}

void InFlightClock::started(double now_s) {
  if (active_++ == 0) since_s_ = now_s;
}

void InFlightClock::completed(double now_s) {
  if (--active_ == 0) accumulated_s_ += now_s - since_s_;
}

double InFlightClock::take(double now_s) {
  if (active_ > 0) {
    accumulated_s_ += now_s - since_s_;
    since_s_ = now_s;
  }
  const double taken = accumulated_s_;
  accumulated_s_ = 0;
  return taken;
}

}  // namespace dasim::executor
