// Strong scaling: a scenario's "global_batch" holds the samples per optimizer step fixed across GPU
// counts, as published strong-scaling tables do (DeepLearningExamples' BERT pre-training: 65,536
// sequences per step on 1 to 32 DGX A100 nodes), so each configuration, and its baseline, runs
// global_batch / (GPUs x batch_per_gpu) micro-batches of gradient accumulation per step.
#pragma once

#include "common/json_reader.hpp"
#include "scenario/scenario.hpp"

namespace dasim::scenario {

// Reads the optional "global_batch" (after platforms, batches, the baseline and the schedules):
// it must be a whole number of micro-batches for every configuration and baseline, and the
// schedules may not set gradient_accumulation_steps themselves.
void read_global_batch(ObjectReader& top, Scenario& sc);

// The schedule a configuration of `gpus` GPUs at `batch_per_gpu` runs: the scenario's, with the
// accumulation steps that make up the global batch when there is one.
schedules::ScheduleSpec schedule_at(const Scenario& sc, size_t schedule, int64_t gpus, int batch_per_gpu);

}  // namespace dasim::scenario
