#include "schedules/schedule_spec.hpp"

#include <fmt/format.h>

namespace dasim::schedules {

std::string to_string(ScheduleKind kind) {
  return std::string(kScheduleKindNames.name(kind));
}

std::string describe(const ScheduleSpec& spec) {
  switch (spec.kind) {
    case ScheduleKind::sgd:
      return spec.overlap ? "sgd" : "sgd(no overlap)";
    case ScheduleKind::local_sgd:
      return fmt::format("local_sgd(tau={})", spec.tau);
    case ScheduleKind::dasgd:
      return fmt::format("dasgd(tau={},d={})", spec.tau, spec.delay);
  }
  return "?";
}

}  // namespace dasim::schedules
