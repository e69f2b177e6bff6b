// The body of one worker actor (one per GPU): replays the StepPlan under a schedule, starting
// collectives on the shared Communicator and recording where its time goes.
#pragma once

#include "collectives/communicator.hpp"
#include "schedules/schedule_spec.hpp"
#include "workers/step_plan.hpp"
#include "workers/worker_record.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <random>

namespace dasim::workers {

using schedules::ScheduleKind;
using schedules::ScheduleSpec;

struct WorkerSetup {
  int rank = 0;
  int iterations = 1;    // total, warm-up included
  double slowdown = 1;   // straggler what-if: compute takes this many times longer
  double jitter_stddev = 0;  // relative; each step's compute is scaled by max(0.05, 1 + N(0, stddev))
  uint64_t seed = 1;
};

class Worker {
 public:
  Worker(const WorkerSetup& setup, const StepPlan& plan, const ScheduleSpec& schedule,
         collectives::Communicator& comm, WorkerRecord& record);
  void operator()();  // runs all iterations; call as the actor body

 private:
  void compute(double seconds, const char* name);
  // Layer by layer, polling the collectives in flight after each one (progress polled_rounds,
  // as dasim-train calls MPI_Test between layers); one block of compute otherwise.
  void compute_layers(const std::vector<double>& layers_s, double total_s, const char* name);
  void poll();
  // An allreduce this worker has asked for. With host progress it only starts when waited for.
  struct Allreduce {
    double bytes = 0;
    std::string name;
    collectives::PendingCollectivePtr pending;  // null until started
    std::shared_ptr<collectives::PolledRing> ring;  // progress polled_rounds: driven by this rank
    double started_at = 0;
  };
  using AllreducePtr = std::shared_ptr<Allreduce>;
  AllreducePtr start_allreduce(double bytes, const std::string& name);
  void wait(const AllreducePtr& allreduce);
  void local_step();  // forward, backward, local update (no communication)
  void run_sgd_step();
  void finish_iteration();

  WorkerSetup setup_;
  const StepPlan& plan_;
  ScheduleSpec schedule_;
  collectives::Communicator& comm_;
  WorkerRecord& record_;
  std::mt19937_64 rng_;
  // polled progress: the end of the collectives' active time this rank has already paid for, so
  // collectives in flight together (sharing the links, each stretched) are paid once per instant.
  double polled_until_ = 0;
  std::vector<AllreducePtr> rings_in_flight_;  // polled_rounds: started, not yet waited for
  double step_factor_ = 1;
  int iteration_ = 0;
};

}  // namespace dasim::workers
