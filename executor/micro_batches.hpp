// Gradient accumulation in the trainers: which minibatch of a rank's shard a micro-batch reads, and
// the step's loss over its micro-batches.
#pragma once

#include "schedules/run_schedule.hpp"

#include <cstdint>

namespace dasim::executor {

// Micro-batch m of step k (1-based) of A is minibatch (k - 1) A + m of the shard: A micro-batches
// of b samples read exactly the samples one minibatch of A b would (fill_batch), so a run with
// accumulation trains on the data of the run with the larger batch. A = 1: minibatch k - 1.
inline int64_t micro_batch_number(long step, schedules::MicroBatch m) {
  return int64_t{step - 1} * m.count + m.index;
}

// The step's loss: the mean of its micro-batches' (equal-sized) losses, as a running mean.
inline float step_loss(float mean_so_far, float micro_batch_loss, schedules::MicroBatch m) {
  return m.index == 0 ? micro_batch_loss
                      : mean_so_far + (micro_batch_loss - mean_so_far) / static_cast<float>(m.index + 1);
}

}  // namespace dasim::executor
