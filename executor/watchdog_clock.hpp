// The watchdog's view of time (comm.cpp): a wait that outlives its deadline blames the peers, but
// time during which this process itself did not run (SIGSTOP, a suspended VM, a starved CPU) is not
// theirs. The watchdog thread ticks every `tick_ns`; a tick that comes `gap_ns` after the last one,
// far later than a tick, means the whole process was stopped, so the armed deadline moves by that
// gap. (A stopped-then-resumed rank blamed "a peer rank" for its own stop.)
#pragma once

#include <cstdint>

namespace dasim::executor {

// The deadline after a tick `gap_ns` after the previous one; 0 (no guarded wait) stays 0. A gap up
// to 10 ticks is scheduling noise, not a stop.
inline int64_t deadline_after_tick(int64_t deadline_ns, int64_t gap_ns, int64_t tick_ns) {
  if (deadline_ns == 0 || gap_ns <= 10 * tick_ns) return deadline_ns;
  return deadline_ns + (gap_ns - tick_ns);
}

}  // namespace dasim::executor
