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

}  // namespace dasim::executor
