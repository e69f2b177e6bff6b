// The MPI backend of the schedule engine (schedules/run_schedule.hpp): the operations of one
// rank of dasim-train on the CPU, with their timing. The engine decides the schedule; this class
// only knows how to compute, start, poll and wait on MPI, and update the MLP's flat buffers.
//   forward_backward  the MLP on OpenBLAS; MPI_Test of every request in flight after each layer
//                     (Open MPI progresses a non-blocking collective only inside MPI calls), and a
//                     bucket's MPI_Iallreduce right after its last layer's gradient is complete
//   start / wait      MPI_Iallreduce / MPI_Wait under the watchdog
//   allreduce_blocking MPI_Allreduce of the weights (local SGD)
// Per step it records the loss, wall time, time a collective was in flight, time blocked in waits
// and time inside the calls that start and poll collectives (step_timing.hpp).
#pragma once

#include "comm.hpp"
#include "dataset.hpp"
#include "mlp.hpp"
#include "options.hpp"
#include "schedules/run_schedule.hpp"
#include "step_record.hpp"
#include "top_k.hpp"
#include "workload/fragments.hpp"

#include <mpi.h>

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
  void forward_backward(const schedules::BucketReady& bucket_ready);
  Collective start(schedules::Payload payload);
  void wait(Collective c);
  void allreduce_blocking(schedules::Payload payload);
  void apply_gradients(bool averaged);
  void average_weights();
  void take_snapshot() { snapshot_ = model_.weights(); }
  void apply_average();
  void outer_gradient(int fragment);
  void outer_step(int fragment);
  void end_step(long step);
  void drained();
  void step_done(long step);

 private:
  void poll();
  size_t snapshot_request() const { return out_.buckets.size(); }
  size_t fragment_request(int fragment) const { return out_.buckets.size() + 1 + size_t(fragment); }

  const TrainOptions& options_;
  Mlp& model_;
  const Dataset& data_;
  MPI_Comm comm_;
  TrainOutput& out_;
  int rank_ = 0, ranks_ = 1;
  // Hierarchical data parallelism: the island's communicator (consecutive ranks), which the
  // gradient buckets use; comm_ itself without islands.
  MPI_Comm bucket_comm_ = MPI_COMM_NULL;
  int bucket_ranks_ = 1;
  std::vector<int> bucket_ending_at_;  // per layer: the bucket its gradient completes, or -1
  // One per bucket, then the DaSGD snapshot's, then one per DiLoCo fragment.
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
  float loss_ = 0;
  double step_start_s_ = 0, step_end_s_ = 0, loop_start_s_ = 0;
  double call_s_ = 0, wait_s_ = 0;  // this step: inside non-blocking calls, blocked in waits
};

}  // namespace dasim::executor
