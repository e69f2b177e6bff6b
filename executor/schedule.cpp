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

}  // namespace dasim::executor
