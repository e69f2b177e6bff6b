// The CUDA + NCCL backend of the schedule engine (schedules/run_schedule.hpp): one rank of
// dasim-train --device cuda, its model on one GPU (gpu_mlp.hpp), its collectives on NCCL, issued
// on a communication stream so they overlap the compute stream.
//   start          an event on the compute stream gates the ncclAllReduce on the communication
//                  stream (a bucket after backward has enqueued its last layer; the snapshot after
//                  its device copy); a second event tells when it has finished
//   poll           cudaEventQuery of every collective in flight, between layers
//   wait           the compute stream is finished first (compute time), then a host wait on the
//                  collective's event under the watchdog: what remains is exposed communication
// MPI only bootstraps NCCL (the unique id) and carries the consistency check and the results.
#pragma once

#include "comm.hpp"
#include "cuda/cuda_resources.hpp"
#include "cuda/gpu_mlp.hpp"
#include "dataset.hpp"
#include "options.hpp"
#include "schedules/run_schedule.hpp"
#include "step_record.hpp"
#include "workload/fragments.hpp"

#include <mpi.h>

#include <vector>

namespace dasim::executor {

class GpuBackend {
 public:
  GpuBackend(const TrainOptions& options, GpuMlp& model, const Dataset& data, MPI_Comm comm, ncclComm_t nccl,
             TrainOutput& out);

  using Collective = size_t;  // index into collectives_
  int bucket_count() const { return static_cast<int>(out_.buckets.size()); }
  void begin_step(long step);
  void forward_backward(schedules::MicroBatch micro_batch, const schedules::BucketReady& bucket_ready);
  Collective start(schedules::Payload payload);
  void wait(Collective c);
  void allreduce_blocking(schedules::Payload payload) { wait(start(payload)); }
  void apply_gradients(bool averaged);
  void average_weights();
  void take_snapshot();
  void apply_average();
  void outer_gradient(int fragment);
  void outer_step(int fragment);
  void end_step(long step);
  void drained();
  void step_done(long step);

 private:
  // One collective on the communication stream: `ready` gates it behind the compute stream's
  // work, `done` tells when it has finished.
  struct InFlight {
    CudaEvent ready, done;
    bool in_flight = false;
  };
  void poll();
  void axpy(float alpha, const float* x, float* y, int64_t count);
  void axpy(float alpha, const float* x, float* y) { axpy(alpha, x, y, model_.param_count()); }
  void scal(float alpha, float* x, int64_t count);
  size_t snapshot_index() const { return out_.buckets.size(); }
  size_t fragment_index(int fragment) const { return out_.buckets.size() + 1 + size_t(fragment); }

  const TrainOptions& options_;
  GpuMlp& model_;
  const Dataset& data_;
  MPI_Comm comm_;
  ncclComm_t nccl_;
  TrainOutput& out_;
  int rank_ = 0, ranks_ = 1;
  std::vector<int> bucket_ending_at_;  // per layer: the bucket its gradient completes, or -1
  CudaStream comm_stream_;
  // One per bucket, then the weights' / snapshot's, then one per DiLoCo fragment.
  std::vector<InFlight> collectives_;
  DeviceFloats snapshot_, snapshot_sum_;  // dasgd only
  // The DiLoCo family: fragments, outer weights and momentum, outer gradient and its sum.
  std::vector<workload::Fragment> fragments_;
  DeviceFloats global_, momentum_, delta_, delta_sum_;
  DeviceFloats eager_delta_[2], eager_sum_[2];  // eager diloco: this round's and the one before
  long eager_round_ = 0;
  InFlightClock clock_;
  std::vector<float> x_;
  std::vector<int32_t> y_;
  float loss_ = 0;  // the step's, the mean over its micro-batches
  long step_ = 0;
  double step_start_s_ = 0, step_end_s_ = 0, loop_start_s_ = 0;
  double call_s_ = 0, wait_s_ = 0;  // this step: inside enqueue/query calls, blocked in waits
};

}  // namespace dasim::executor
