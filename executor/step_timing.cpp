// Step accounting and progress lines shared by the trainers (see step_timing.hpp).
#include "step_timing.hpp"

#include "comm.hpp"

#include <algorithm>
#include <cstdio>

namespace dasim::executor {

StepRecord finish_step(float loss, const StepTimes& t) {
  StepRecord record;
  record.loss = loss;
  record.wall_s = t.end_s - t.start_s;
  record.comm_s = t.in_flight_s;
  record.wait_s = t.wait_s;
  record.exposed_s = t.wait_s + t.call_s;
  record.compute_s = record.wall_s - record.exposed_s;
  return record;
}

void report_progress(const TrainOptions& options, int rank, long step, const StepRecord& record,
                     double loop_start_s) {
  const int every = std::max(1, options.steps / 10);
  if (rank != 0 || options.quiet || (step % every != 0 && step != options.steps)) return;
  const double elapsed_s = wall_now_s() - loop_start_s;
  std::fprintf(stderr, "dasim-train: step %ld/%d loss %.4f step time %.3f ms, ETA %.1f s\n", step,
               options.steps, record.loss, record.wall_s * 1e3, elapsed_s / step * (options.steps - step));
}

}  // namespace dasim::executor
