// What one worker computes in one training step, derived once from the workload, the compute
// model and the bucket plan (pure: no SimGrid), so the schedules only replay it:
//   forward (all layers), backward in segments that each end where a gradient bucket becomes
//   ready, the buckets' copies, the optimizer update, and the DaSGD "apply the average" element-wise
//   pass.
#pragma once

#include "compute/compute_model.hpp"
#include "schedules/schedule_spec.hpp"
#include "workload/buckets.hpp"
#include "workload/workload.hpp"

#include <algorithm>
#include <vector>

namespace dasim::workers {

struct BackwardSegment {
  double time_s = 0;
  int bucket = -1;    // bucket whose gradient is complete at the end of this segment, or -1
  double adds_s = 0;  // gradient accumulation: what a micro-batch after the first adds (micro_batch_add_s)
};

// fsdp: a stretch of forward whose layers need unit `unit`'s weights gathered first (a unit is a
// bucket's layers; -1: layers of no unit, which need none).
struct ForwardSegment {
  double time_s = 0;
  int unit = -1;
};

struct StepPlan {
  double forward_s = 0;
  // Forward in stretches of one unit each, in execution order (fsdp gathers before each).
  std::vector<ForwardSegment> forward;
  std::vector<BackwardSegment> backward;  // in execution order (last layer first)
  // Per layer, in execution order (forward first layer first, backward last layer first): where a
  // rank that polls its collectives between layers (progress polled_rounds) makes its calls.
  // A backward layer's time holds the recomputed forward that runs before it (activation
  // checkpointing: its block's, at the block's last layer).
  std::vector<double> forward_layers_s, backward_layers_s;
  std::vector<int> bucket_after_backward_layer;  // per backward layer: the bucket it completes, or -1
  double update_s = 0;
  // The input pipeline: what the loader feeding this GPU takes to prepare one step's samples (0:
  // never waited for). In a simulation the worker waits at each step's end until the loader,
  // which began on the next step's samples when this step began, is done (workers/worker.cpp), so
  // the loader also has the step's exposed communication to work in.
  double input_per_step_s = 0;
  // Gradient accumulation: the micro-batches of a step (forward and backward above are one
  // micro-batch's), and per backward layer what each micro-batch after the first adds to it.
  int micro_batches = 1;
  std::vector<double> backward_layers_adds_s;
  std::vector<double> bucket_bytes;  // in ready order
  // Per bucket: DDP's copy of the gradients into the bucket (and of the average back), a read and
  // a write of its bytes at the memory bandwidth; charged unless the schedule has bucket_view.
  std::vector<double> bucket_copy_s;
  double weight_bytes = 0;     // one full copy of the weights (what local SGD averages)
  double apply_average_s = 0;  // dasgd: w <- avg + (w - snapshot): 4 weight-sized streams
  double snapshot_s = 0;       // dasgd: copy of the weights: 2 weight-sized streams

  // The averaged payload of the periodic schedules (plan_averaging), compression included: what
  // the weight / snapshot collective carries, and the compress pass before it and the decompress
  // pass after it (0 uncompressed). With top-k the collective is an all-gather and its bytes are
  // the gathered total: every worker's (index, value) pairs.
  bool gather_averages = false;
  double averaged_payload_bytes = 0;
  double compress_s = 0, decompress_s = 0;
  // The DiLoCo family, per fragment (one for diloco): the outer gradient's collective payload, the
  // outer gradient pass (compression included) and the outer step (decompression, optimizer, merge).
  std::vector<double> fragment_payload_bytes, outer_gradient_s, outer_step_s;

  double backward_s() const;  // one micro-batch's, the first
  double backward_adds_s() const;
  // All micro-batches' forward and backward, and the update.
  double step_compute_s() const {
    return micro_batches * (forward_s + backward_s()) + (micro_batches - 1) * backward_adds_s() + update_s;
  }
  // The closed-form wait for the loader beyond the step's compute: what one GPU without
  // communication waits per step.
  double input_wait_s() const { return std::max(0.0, input_per_step_s - step_compute_s()); }
};

// `shards` > 1: the model sharded over that many GPUs (fsdp), each updating, snapshotting and
// merging its 1/shards of the weights. `micro_batches` of `batch` samples per step (gradient
// accumulation): the loader has the whole step to deliver them.
StepPlan plan_step(const workload::Workload& workload, const compute::ComputeModel& model,
                   double memory_bandwidth_Bps, int batch, double bucket_cap_bytes, int shards = 1,
                   int micro_batches = 1);

// The averaging part of `plan` for a periodic schedule averaged over `ranks` GPUs in islands of
// `island_gpus` (1: none; top-k selects on each GPU's 1/island_gpus shard; with the islands
// sharded (fsdp) each GPU averages its own 1/island_gpus of the weights with its peers): payload
// bytes after compression to schedule.payload_bits (never more than the workload's own element
// size) and top-k, and the element-wise passes as memory-bound compute at `memory_bandwidth_Bps`:
//   quantize    read a weight-sized stream, write the compressed payload
//   dequantize  read the compressed payload, write a weight-sized stream
//   top-k       residual += payload (3 weight-sized streams), a selection pass over the residual
//               (1 stream: the threshold from a sample, as DGC), write the k pairs, clear the k
//               sent entries of the residual (scattered: TopKCost)
//   top-k sum   zero a weight-sized accumulator, then per worker (island) read its k pairs and
//               add them into the accumulator (a scattered read and write); local_sgd and dasgd
//               also form the weights' change before (3 streams) and apply the sum after (5)
//   outer gradient  Delta = theta_global - theta: 3 weight-sized streams (read 2, write 1)
//   outer step  sgd: theta_global read + write, Delta read, theta read + write (lerp): 5 streams;
//               nesterov also reads and writes the momentum: 7 streams; eager 3 more (the
//               combination of the own and the previous round's outer gradients)
void plan_averaging(StepPlan& plan, const workload::Workload& workload,
                    const schedules::ScheduleSpec& schedule, double memory_bandwidth_Bps, int ranks,
                    int island_gpus);

// Bytes a scattered access to k of n elements of `element_bytes` moves: GPU memory moves whole
// 32-byte sectors (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory"), so each
// of k entries far apart costs a sector, and never more than the whole n-element vector.
double scattered_bytes(double k, double n, double element_bytes);
inline constexpr double kMemorySectorBytes = 32;

}  // namespace dasim::workers
