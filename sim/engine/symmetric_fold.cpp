#include "engine/symmetric_fold.hpp"

#include "collectives/symmetry.hpp"
#include "compute/compute_model.hpp"
#include "schedules/schedule_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace dasim::engine {
namespace {

// The collectives a worker of this plan starts over all ranks (workers/worker.cpp): gradient
// buckets for sgd (the plan has buckets for every schedule, which only sgd allreduces over all
// ranks), the averaged payload or its fragments for the periodic schedules, all-gathered with top-k.
std::vector<collectives::CollectiveCall> planned_collectives(const schedules::ScheduleSpec& schedule,
                                                             const workers::StepPlan& plan) {
  std::vector<collectives::CollectiveCall> calls;
  if (schedule.kind == schedules::ScheduleKind::sgd)
    for (double bytes : plan.bucket_bytes) calls.emplace_back(collectives::Op::allreduce, bytes);
  const auto averaging = plan.gather_averages ? collectives::Op::all_gather : collectives::Op::allreduce;
  if (plan.averaged_payload_bytes > 0) calls.emplace_back(averaging, plan.averaged_payload_bytes);
  for (double bytes : plan.fragment_payload_bytes)
    if (bytes > 0) calls.emplace_back(averaging, bytes);
  return calls;
}

std::string why_not_folded(const TrainingConfig& config, const workers::StepPlan& plan) {
  if (schedules::has_islands(config.schedule)) return "islands";
  if (schedules::has_sharded_steps(config.schedule)) return "fsdp";
  if (!config.slowdown_by_rank.empty()) return "stragglers or gpu_spread";  // ranks of unequal speed
  if (config.jitter_stddev > 0) return "jitter";
  return collectives::why_not_symmetric(config.platform, config.collective,
                                        planned_collectives(config.schedule, plan));
}

}  // namespace

workers::StepPlan plan_training_step(const TrainingConfig& config, int ranks) {
  const compute::ComputeModel model(config.calibration, config.precision);
  const double memory_Bps = config.calibration.fitted.memory_bandwidth_Bps;
  const int island_gpus =
      schedules::has_islands(config.schedule) ? std::min(config.schedule.island_gpus, ranks) : 1;
  // fsdp shards the model over the GPUs that step together: all of them for sgd, an island's.
  const int shards = !schedules::has_sharded_steps(config.schedule)         ? 1
                     : config.schedule.kind == schedules::ScheduleKind::sgd ? ranks
                                                                            : island_gpus;
  auto plan =
      workers::plan_step(config.workload, model, memory_Bps, config.batch_per_gpu,
                         config.schedule.bucket_cap_bytes, shards, config.schedule.accumulation_steps);
  workers::plan_averaging(plan, config.workload, config.schedule, memory_Bps, ranks, island_gpus);
  // The node's host shares its input pipeline among the node's GPUs.
  if (config.host_input_samples_per_s > 0) {
    const double samples = double(plan.micro_batches) * config.batch_per_gpu;
    const double host_share_s = samples * config.platform.gpus_per_node / config.host_input_samples_per_s;
    plan.input_per_step_s = std::max(plan.input_per_step_s, host_share_s);
  }
  return plan;
}

FoldDecision decide_fold(const TrainingConfig& config, const workers::StepPlan& plan) {
  FoldDecision decision;
  decision.why_not = why_not_folded(config, plan);
  decision.simulated_nodes = decision.folded() ? kFoldedNodes : config.platform.nodes;
  return decision;
}

FoldDecision decide_fold(const TrainingConfig& config) {
  return decide_fold(config, plan_training_step(config, config.platform.total_gpus()));
}

}  // namespace dasim::engine
