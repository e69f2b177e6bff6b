// Names of the schedules as they appear on the command line and in result rows.
#include "schedule.hpp"

namespace dasim::executor {

const char* to_string(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::sgd:
      return "sgd";
    case ScheduleKind::local_sgd:
      return "local_sgd";
    case ScheduleKind::dasgd:
      return "dasgd";
  }
  return "?";
}

SteadyWindow steady_window(const Schedule& s, long steps, long warmup_steps) {
  const long period = sync_period(s);
  SteadyWindow w;
  w.first = (warmup_steps + period - 1) / period * period;
  w.count = steps > w.first ? (steps - w.first) / period * period : 0;
  return w;
}

}  // namespace dasim::executor
