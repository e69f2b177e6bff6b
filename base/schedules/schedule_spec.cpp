#include "schedules/schedule_spec.hpp"

#include <fmt/format.h>

namespace dasim::schedules {

const char* to_string(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::sgd: return "sgd";
    case ScheduleKind::local_sgd: return "local_sgd";
    case ScheduleKind::dasgd: return "dasgd";
  }
  return "?";
}

std::string describe(const ScheduleSpec& spec) {
  switch (spec.kind) {
    case ScheduleKind::sgd: return spec.overlap ? "sgd" : "sgd(no overlap)";
    case ScheduleKind::local_sgd: return fmt::format("local_sgd(tau={})", spec.tau);
    case ScheduleKind::dasgd: return fmt::format("dasgd(tau={},d={})", spec.tau, spec.delay);
  }
  return "?";
}

}  // namespace dasim::schedules
