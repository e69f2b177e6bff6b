// The body of one worker actor (one per GPU): the SimGrid backend of the schedule engine
// (schedules/run_schedule.hpp). It replays the StepPlan's compute as SimGrid executions, starts
// collectives on the shared Communicator and records where its time goes; the schedule itself
// (which collective when, what waits for what) is the engine's. Two costs of DDP on a GPU are the
// backend's own: the copies of the gradients into their buckets and back (unless bucket_view),
// and the interference of collectives with compute (WorkerSetup::interference).
#pragma once

#include "collectives/communicator.hpp"
#include "schedules/run_schedule.hpp"
#include "schedules/schedule_spec.hpp"
#include "workers/step_plan.hpp"
#include "workers/worker_record.hpp"

#include <simgrid/s4u/Exec.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

namespace dasim::workers {

struct WorkerSetup {
  int rank = 0;
  int iterations = 1;        // total, warm-up included
  double slowdown = 1;       // straggler what-if: compute takes this many times longer
  double jitter_stddev = 0;  // relative; each step's compute is scaled by max(0.05, 1 + N(0, stddev))
  uint64_t seed = 1;
  int island_rank = 0;  // hierarchical data parallelism: this rank inside its island
  int island = 0;       // and which island it is in
  // Calibration fitted.compute_slowdown_under_collective, f in [0, 1): while a device-driven
  // collective of this rank is in flight, compute takes (1 + f) times as long (NCCL's kernels take
  // SMs and memory bandwidth). 0: none.
  double interference = 0;
};

class Worker {
 public:
  // `island`: the communicator of this rank's island, which the gradient buckets use (null: all
  // ranks, `comm`); the averaging of the periodic schedules runs over `comm`, or with sharded
  // islands over `peers`: the GPUs of this rank's index in every island, each averaging its shard.
  Worker(const WorkerSetup& setup, const StepPlan& plan, const schedules::ScheduleSpec& schedule,
         collectives::Communicator& comm, WorkerRecord& record, collectives::Communicator* island = nullptr,
         collectives::Communicator* peers = nullptr);
  void operator()();  // runs all iterations; call as the actor body

  // A collective this worker has asked for: an allreduce, or the all-gather of top-k's pairs. With
  // host progress it only starts when waited for.
  struct Allreduce {
    collectives::Op op = collectives::Op::allreduce;
    double bytes = 0;
    std::string name;
    collectives::PendingCollectivePtr pending;      // null until started
    std::shared_ptr<collectives::PolledRing> ring;  // progress polled_rounds: driven by this rank
    double started_at = 0;
    collectives::Communicator* group = nullptr;  // where it runs
    int group_rank = 0;                          // this rank there
    double copy_out_s = 0;  // a gradient bucket without bucket_view: the copy back after the wait
  };

  // The backend operations of schedules::ScheduleBackend.
  using Collective = std::shared_ptr<Allreduce>;
  int bucket_count() const { return static_cast<int>(plan_.bucket_bytes.size()); }
  void begin_step(long step);
  void forward_backward(schedules::MicroBatch micro_batch, const schedules::BucketReady& bucket_ready);
  Collective start(schedules::Payload payload);
  void wait(const Collective& allreduce);  // then the bucket's copy out, if any
  void allreduce_blocking(schedules::Payload payload) { wait(start(payload)); }
  void apply_gradients(bool averaged);
  void average_weights();  // the average arrives with the collective; a dequantize or top-k sum pass
  void take_snapshot();
  void apply_average();
  void outer_gradient(int fragment);
  void outer_step(int fragment);
  void end_step(long step);
  void drained() {}
  void step_done(long) {}

 private:
  void compute(double seconds, const char* name);
  // The input pipeline, at a step's end: wait until the loader has the next step's samples. It
  // began on them when this step began (a DataLoader's workers prepare the next batch while the
  // GPU trains on this one; the first step's were ready before the run), so a loader slower than
  // the step sets every step's period, the first's too, and one faster is never waited for. One
  // step's samples in flight, no deeper queue: a step shorter than the loader cannot bank time
  // for a longer one.
  void wait_for_input();
  // The trace's names of the averaged payload's compress and decompress passes.
  const char* compress_name() const { return plan_.gather_averages ? "top-k select" : "quantize"; }
  const char* decompress_name() const { return plan_.gather_averages ? "top-k sum" : "dequantize"; }
  // Layer by layer, polling the collectives in flight after each one (progress polled_rounds,
  // as dasim-train calls MPI_Test between layers); one block of compute otherwise.
  void compute_layers(const std::vector<double>& layers_s, double total_s, const char* name);
  // `adds`: a micro-batch after the step's first, whose backward adds into the step's gradients.
  void backward(bool adds, const schedules::BucketReady& bucket_ready);
  // fsdp: forward and backward unit by unit, each unit's weights all-gathered before it.
  void sharded_forward_backward(const schedules::BucketReady& bucket_ready);
  // The group the synchronous step runs over (the island's, or all ranks) and this rank there.
  collectives::Communicator& step_group() { return island_ ? *island_ : comm_; }
  int step_rank() const { return island_ ? setup_.island_rank : setup_.rank; }
  void poll();
  void wait_for(const Collective& allreduce);
  // Interference: a collective just started on this GPU, counted in flight until it completes
  // (noticed by the collective's completion callback, in the actor whose part ends it).
  void track_interference(const Collective& allreduce);
  // A collective over `group` (comm_ or the island's), in which this rank is `group_rank`.
  Collective start_collective(collectives::Op op, double bytes, const std::string& name,
                              collectives::Communicator& group, int group_rank);
  // The periodic schedules' averaging over comm_ (peers_ when sharded): an allreduce, or with
  // top-k an all-gather.
  Collective start_averaging(double bytes, const std::string& what);

  WorkerSetup setup_;
  const StepPlan& plan_;
  schedules::ScheduleSpec schedule_;
  collectives::Communicator& comm_;
  WorkerRecord& record_;
  collectives::Communicator* island_;
  collectives::Communicator* peers_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> jitter_{0.0, 1.0};
  // polled progress: the end of the collectives' active time this rank has already paid for, so
  // collectives in flight together (sharing the links, each stretched) are paid once per instant.
  double polled_until_ = 0;
  std::vector<Collective> rings_in_flight_;  // polled_rounds: started, not yet waited for
  double step_factor_ = 1;
  double loader_began_at_ = 0;  // when the loader began the next step's samples (this step's start)
  // Interference: this rank's device-driven collectives in flight, and while there are any, a
  // background load on the GPU host that leaves compute 1 / (1 + f) of its speed.
  int collectives_in_flight_ = 0;
  simgrid::s4u::ExecPtr load_;
};

}  // namespace dasim::workers
