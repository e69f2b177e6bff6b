// A training schedule as docs/algorithms.md defines it, with its parameters:
//   sgd       gradient allreduce per bucket, overlapped with the rest of backward (or not);
//   local_sgd tau local steps, then a blocking weight allreduce;
//   dasgd     snapshot every tau steps, non-blocking weight allreduce overlapping the next d steps,
//             then w <- avg + (w - snapshot).
// The simulator and both trainers read the same spec and run it through the one schedule engine
// (schedules/run_schedule.hpp).
#pragma once

#include "common/enum_names.hpp"
#include "workload/buckets.hpp"

#include <string>

namespace dasim::schedules {

enum class ScheduleKind { sgd, local_sgd, dasgd };

inline constexpr EnumNames<ScheduleKind, 3> kScheduleKindNames{{{
    {ScheduleKind::sgd, "sgd"},
    {ScheduleKind::local_sgd, "local_sgd"},
    {ScheduleKind::dasgd, "dasgd"},
}}};

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::sgd;
  int tau = 1;    // steps between averagings (local_sgd, dasgd); 1 for sgd
  int delay = 0;  // d: steps the dasgd average may take to arrive (0 <= d <= tau); 0 otherwise
  double bucket_cap_bytes = workload::kDdpDefaultBucketCapBytes;  // sgd: DDP bucket cap
  bool overlap = true;  // sgd: start each bucket's allreduce during backward
};

std::string to_string(ScheduleKind kind);
// "sgd", "local_sgd(tau=4)", "dasgd(tau=4,d=1)"
std::string describe(const ScheduleSpec& spec);

}  // namespace dasim::schedules
