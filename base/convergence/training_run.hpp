// One dasim-train run (its -o JSON, docs/executor.md) as the fit needs it: the schedule, ranks,
// batch per rank and the steps its loss curve took to reach the target.
#pragma once

#include "schedules/schedule_spec.hpp"

#include <optional>
#include <string>

namespace dasim::convergence {

struct TrainingRun {
  std::string file;
  schedules::ScheduleSpec schedule;  // kind, tau (H), delay, island_gpus (island ranks), eager
  int ranks = 1;
  int batch_per_rank = 1;
  int steps = 0;  // to the target, by steps_to_target() over the run's loss_curve
};

// Reads FILE; `window` overrides the run's own target window. InputError `FILE: json.path: what`
// for a file that is not a dasim-train run, and for a run whose loss never reaches the target.
TrainingRun load_training_run(const std::string& file, double target_loss, std::optional<int> window);

}  // namespace dasim::convergence
