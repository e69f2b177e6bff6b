// Which schedule a run uses and its parameters, plus the step arithmetic every part of the
// executor agrees on. Steps are numbered from 1; an averaging point k0 is a step with k0 % tau == 0
// (after that step's local update); DaSGD merges the average at k0 + delay.
#pragma once

#include <string>

namespace dasim::executor {

enum class ScheduleKind { sgd, local_sgd, dasgd };

struct Schedule {
  ScheduleKind kind = ScheduleKind::sgd;
  int tau = 1;    // local steps between averagings (1 for sgd)
  int delay = 0;  // DaSGD: steps the snapshot average is in flight, 0 <= delay <= tau
};

const char* to_string(ScheduleKind kind);
inline bool is_averaging_step(const Schedule& s, long step) {
  return s.kind != ScheduleKind::sgd && step % s.tau == 0;
}

// Steps between two synchronisations of the ranks: 1 for sgd, tau for local_sgd and dasgd.
inline int sync_period(const Schedule& s) {
  return s.kind == ScheduleKind::sgd ? 1 : s.tau;
}

// The steps the steady-state statistics cover, 0-based [first, first + count): the warm-up rounded
// up to whole synchronisation periods, then as many whole periods as the run has left, as
// `dasim run` measures. A window that cut a period would count one averaging too many or too few
// (one in 14 for tau = 4 over 55 steps); steps after the last whole period train but are not timed.
struct SteadyWindow {
  long first = 0;
  long count = 0;
};
SteadyWindow steady_window(const Schedule& s, long steps, long warmup_steps);

}  // namespace dasim::executor
