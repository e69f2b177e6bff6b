// A training schedule as ALGORITHMS.md defines it, with its parameters:
//   sgd       gradient allreduce per bucket, overlapped with the rest of backward (or not);
//   local_sgd tau local steps, then a blocking weight allreduce;
//   dasgd     snapshot every tau steps, non-blocking weight allreduce overlapping the next d steps,
//             then w <- avg + (w - snapshot).
#pragma once

#include <string>

namespace dasim::schedules {

enum class ScheduleKind { sgd, local_sgd, dasgd };

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::sgd;
  int tau = 1;    // steps between averagings (local_sgd, dasgd); 1 for sgd
  int delay = 0;  // d: steps the dasgd average may take to arrive (1 <= d <= tau); 0 otherwise
  double bucket_cap_bytes = 25.0 * 1024 * 1024;  // sgd: DDP bucket cap
  bool overlap = true;                           // sgd: start each bucket's allreduce during backward
};

const char* to_string(ScheduleKind kind);
// "sgd", "local_sgd(tau=4)", "dasgd(tau=4,d=1)"
std::string describe(const ScheduleSpec& spec);

}  // namespace dasim::schedules
