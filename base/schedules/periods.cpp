#include "schedules/periods.hpp"

namespace dasim::schedules {

long whole_periods(long steps, const ScheduleSpec& s) {
  const long period = sync_period(s);
  return (steps + period - 1) / period * period;
}

SteadyWindow steady_window(const ScheduleSpec& s, long steps, long warmup_steps) {
  const long period = sync_period(s);
  SteadyWindow w;
  w.first = whole_periods(warmup_steps, s);
  w.count = steps > w.first ? (steps - w.first) / period * period : 0;
  return w;
}

}  // namespace dasim::schedules
