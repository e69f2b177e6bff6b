// The step arithmetic every part of dasim agrees on. Steps are numbered from 1; an averaging point
// k0 is a step with k0 % tau == 0 (after that step's local update); DaSGD merges its average at
// k0 + delay. A synchronisation period is the steps between two synchronisations of the ranks: 1
// for sgd, tau for local_sgd and dasgd; statistics cover whole periods so that the periodic cost is
// counted in proportion.
#pragma once

#include "schedules/schedule_spec.hpp"

namespace dasim::schedules {

inline int sync_period(const ScheduleSpec& s) {
  return s.kind == ScheduleKind::sgd ? 1 : s.tau;
}

inline bool is_averaging_step(const ScheduleSpec& s, long step) {
  return s.kind != ScheduleKind::sgd && step % s.tau == 0;
}

// The DiLoCo family: fragment p (0-based, of P) is synchronised at the steps k with
// k % H == ((p + 1) H / P) % H, so the fragments take turns H / P steps apart and the last one (the
// whole model when P = 1, DiLoCo) at the multiples of H. P divides H (the scenario checks).
inline bool is_fragment_sync_step(const ScheduleSpec& s, int fragment, long step) {
  const long offset = (static_cast<long>(fragment) + 1) * s.tau / s.fragments % s.tau;
  return step % s.tau == offset;
}

// `steps` rounded up to whole synchronisation periods (the simulator's warm-up and measured runs).
long whole_periods(long steps, const ScheduleSpec& s);

// The steps the steady-state statistics of a run of `steps` cover, 0-based [first, first + count):
// the warm-up rounded up to whole periods, then as many whole periods as the run has left (what
// dasim-train times). A window that cut a period would count one averaging too many or too few
// (one in 14 for tau = 4 over 55 steps); steps after the last whole period train but are not timed.
struct SteadyWindow {
  long first = 0;
  long count = 0;
};
SteadyWindow steady_window(const ScheduleSpec& s, long steps, long warmup_steps);

}  // namespace dasim::schedules
