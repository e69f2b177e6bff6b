// The MPI backend of the schedule engine (schedules/run_schedule.hpp): the operations of one
// rank of dasim-train on the CPU, with their timing. The engine decides the schedule; this class
// only knows how to compute, start, poll and wait on MPI, and update the MLP's flat buffers.
//   forward_backward  the MLP on OpenBLAS; MPI_Test of every request in flight after each layer
//                     (Open MPI progresses a non-blocking collective only inside MPI calls), and a
//                     bucket's MPI_Iallreduce right after its last layer's gradient is complete
//   start / wait      MPI_Iallreduce / MPI_Wait under the watchdog
//   allreduce_blocking MPI_Allreduce of the weights (local SGD)
// With --data-parallel fsdp (mpi_backend_fsdp.cpp) a rank keeps only its shard of the weights
// (param_shards.hpp): forward and backward MPI_Iallgatherv each unit's weights just before its
// layers, as PyTorch FSDP does, a gradient bucket becomes an MPI_Ireduce_scatter into the shard,
// the update runs on the shard, and the averaging between islands runs on the shards, each rank
// with the ranks that hold the same shard in the other islands.
// Per step it records the loss, wall time, time a collective was in flight, time blocked in waits
// and time inside the calls that start and poll collectives (step_timing.hpp).
#pragma once

#include "comm.hpp"
#include "dataset.hpp"
#include "mlp.hpp"
#include "options.hpp"
#include "param_shards.hpp"
#include "schedules/run_schedule.hpp"
#include "step_record.hpp"
#include "top_k.hpp"
#include "workload/fragments.hpp"

#include <mpi.h>

#include <optional>
#include <vector>

namespace dasim::executor {

class MpiBackend {
 public:
  MpiBackend(const TrainOptions& options, Mlp& model, const Dataset& data, MPI_Comm comm, TrainOutput& out);
  ~MpiBackend();
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  using Collective = size_t;  // index into requests_
  int bucket_count() const { return static_cast<int>(out_.buckets.size()); }
  void begin_step(long step);
  void forward_backward(schedules::MicroBatch micro_batch, const schedules::BucketReady& bucket_ready);
  Collective start(schedules::Payload payload);
  void wait(Collective c);
  void allreduce_blocking(schedules::Payload payload);
  void apply_gradients(bool averaged);
  void average_weights();
  void take_snapshot() { snapshot_ = own_weights(); }
  void apply_average();
  void outer_gradient(int fragment);
  void outer_step(int fragment);
  void end_step(long step);
  void drained();
  void step_done(long step);
  // fsdp: assembles every unit's weights in the model's buffer (blocking), which sharded training
  // otherwise leaves freed; a no-op for ddp. For the consistency check and the end of the run.
  void materialize_weights();

 private:
  void poll();
  const char* wait_name(size_t c) const;
  size_t snapshot_request() const { return out_.buckets.size(); }
  size_t fragment_request(int fragment) const { return out_.buckets.size() + 1 + size_t(fragment); }
  size_t gather_request(int unit) const { return out_.buckets.size() + 1 + fragments_.size() + size_t(unit); }
  // The weights the update and the averaging between islands act on: the model's, or the shard.
  std::vector<float>& own_weights() { return shards_ ? shard_w_ : model_.weights(); }
  ParamShards::Range fragment_range(int fragment) const;
  // fsdp (mpi_backend_fsdp.cpp).
  float sharded_forward_backward(const schedules::BucketReady& bucket_ready);  // returns the loss
  void gather_unit(int unit, MPI_Request* request);  // this rank's chunk into every rank's model
  void start_gather(int unit);
  void release_unit(int unit);
  Collective start_reduce_scatter(int unit);

  const TrainOptions& options_;
  Mlp& model_;
  const Dataset& data_;
  MPI_Comm comm_;
  TrainOutput& out_;
  int rank_ = 0, ranks_ = 1;
  // Hierarchical data parallelism: the island's communicator (consecutive ranks), which the
  // gradient buckets use; comm_ itself without islands.
  MPI_Comm bucket_comm_ = MPI_COMM_NULL;
  int bucket_ranks_ = 1, bucket_rank_ = 0;
  // The communicator of the averaging between workers: every rank, or with islands the ranks of
  // the same index in every island (with fsdp: the ranks that hold the same shard).
  MPI_Comm averaging_comm_ = MPI_COMM_NULL;
  int averaging_ranks_ = 1;
  // fsdp: the shard map, this rank's weights and summed gradients, each unit's layers, and whether
  // a unit's weights are in the model's buffer (or their all-gather in flight).
  std::optional<ParamShards> shards_;
  std::vector<float> shard_w_, shard_g_;
  std::vector<int> unit_of_layer_;
  std::vector<bool> unit_gathered_;
  std::vector<int> bucket_ending_at_;  // per layer: the bucket its gradient completes, or -1
  // One per bucket, then the DaSGD snapshot's, then one per DiLoCo fragment, then (fsdp) one
  // all-gather per unit.
  std::vector<MPI_Request> requests_;
  std::vector<float> snapshot_, snapshot_sum_;
  // The DiLoCo family: the fragments, the outer (global) weights and momentum, every rank's copy
  // identical, and the outer gradient with its allreduced sum.
  std::vector<workload::Fragment> fragments_;
  std::vector<float> global_, momentum_, delta_, delta_sum_;
  // Eager diloco: the outer gradient and its sum of the round in flight and of the one before
  // ([round % 2]), and whether there was one before.
  std::vector<float> eager_delta_[2], eager_sum_[2];
  long eager_round_ = 0;
  // Top-k (--top-k): the error-feedback residual, and per fragment the k pairs this rank sent and
  // every rank's pairs, all-gathered in rank order.
  std::vector<float> residual_;
  std::vector<std::vector<SparseEntry>> sent_, gathered_;
  MPI_Datatype entry_type_ = MPI_DATATYPE_NULL;
  InFlightClock clock_;
  std::vector<float> x_;
  std::vector<int32_t> y_;
  float loss_ = 0;  // the step's, the mean over its micro-batches
  long step_ = 0;
  double step_start_s_ = 0, step_end_s_ = 0, loop_start_s_ = 0;
  double call_s_ = 0, wait_s_ = 0;  // this step: inside non-blocking calls, blocked in waits
};

}  // namespace dasim::executor
