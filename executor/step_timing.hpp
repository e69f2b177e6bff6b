// How a training step is accounted and reported, the same for the MPI trainer (CPU) and the NCCL
// trainer (CUDA), so that measured rows mean one thing whichever device ran them.
#pragma once

#include "options.hpp"
#include "step_record.hpp"

namespace dasim::executor {

// What a trainer timed during one step.
struct StepTimes {
  double start_s = 0, end_s = 0;  // wall clock at the start and end of the step
  double in_flight_s = 0;         // a collective in flight (InFlightClock::take)
  double wait_s = 0;              // blocked in waits (MPI_Wait, blocking allreduce, event sync)
  double call_s = 0;              // inside the calls that start or poll collectives
};

// Exposed = waits + the calls that start and poll collectives: a host-progressed collective
// (Open MPI over shared memory) does its copies and reductions inside those calls on the rank's
// own core. Compute = the rest of the step.
StepRecord finish_step(float loss, const StepTimes& t);

// Rank 0's progress line (step, loss, step time, ETA) ten times per run, unless --quiet.
void report_progress(const TrainOptions& options, int rank, long step, const StepRecord& record,
                     double loop_start_s);

}  // namespace dasim::executor
