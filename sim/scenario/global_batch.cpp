#include "scenario/global_batch.hpp"

#include "common/units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::scenario {
void read_global_batch(ObjectReader& top, Scenario& sc) {
  if (!top.has("global_batch")) return;
  const int64_t global = top.integer_in("global_batch", 1, int64_t{1} << 40);
  for (size_t s = 0; s < sc.schedules.size(); ++s) {
    if (sc.schedules[s].accumulation_steps != 1)
      top.fail("global_batch",
               fmt::format("schedules[{}] sets gradient_accumulation_steps; with a global_batch the steps "
                           "follow from it (set one of the two)",
                           s));
    if (schedules::has_sharded_steps(sc.schedules[s]))
      top.fail("global_batch", fmt::format("schedules[{}] is fsdp, and gradient accumulation is modelled for "
                                           "ddp only",
                                           s));
  }
  for (size_t p = 0; p < sc.platforms.size(); ++p) {
    const auto& entry = sc.platforms[p];
    std::vector<int64_t> gpu_counts{baseline_gpus(sc, p)};
    for (int nodes : entry.nodes) gpu_counts.push_back(int64_t{nodes} * entry.spec.gpus_per_node);
    for (int64_t gpus : gpu_counts)
      for (int batch : sc.batches) {
        const int64_t per_step = gpus * batch;
        if (global % per_step != 0 || global / per_step > schedules::kMostAccumulationSteps)
          top.fail(
              "global_batch",
              fmt::format("expected a multiple of GPUs x batch_per_gpu, at most {} micro-batches, for every "
                          "configuration and baseline: {} of platform {} at batch {} take {} samples per "
                          "micro-batch, got {}",
                          schedules::kMostAccumulationSteps, units::format_count(gpus, "GPU"),
                          entry.spec.name, batch, per_step, global));
      }
  }
  sc.global_batch = global;
}

schedules::ScheduleSpec schedule_at(const Scenario& sc, size_t schedule, int64_t gpus, int batch_per_gpu) {
  auto spec = sc.schedules[schedule];
  if (sc.global_batch) spec.accumulation_steps = static_cast<int>(*sc.global_batch / (gpus * batch_per_gpu));
  return spec;
}

}  // namespace dasim::scenario
