#include "engine/training_simulation.hpp"

#include "collectives/communicator.hpp"
#include "compute/compute_model.hpp"
#include "runtime/simulation.hpp"
#include "schedules/periods.hpp"
#include "workers/worker.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace dasim::engine {

TrainingResult simulate_training(const TrainingConfig& config) {
  compute::ComputeModel model(config.calibration, config.precision);
  auto plan = workers::plan_step(config.workload, model, config.calibration.fitted.memory_bandwidth_Bps,
                                 config.batch_per_gpu, config.schedule.bucket_cap_bytes);
  workers::plan_averaging(plan, config.workload, config.schedule,
                          config.calibration.fitted.memory_bandwidth_Bps);
  const int warmup = static_cast<int>(schedules::whole_periods(config.warmup_iterations, config.schedule));
  const int measured =
      static_cast<int>(schedules::whole_periods(std::max(1, config.measured_iterations), config.schedule));

  runtime::Simulation sim(config.platform);
  collectives::Communicator comm(config.platform, sim.platform(), config.collective);
  const int p = comm.size();
  std::vector<workers::WorkerRecord> records(static_cast<size_t>(p));
  std::vector<std::unique_ptr<workers::Worker>> workers;
  for (int rank = 0; rank < p; ++rank) {
    workers::WorkerSetup setup;
    setup.rank = rank;
    setup.iterations = warmup + measured;
    auto slow = config.slowdown_by_rank.find(rank);
    setup.slowdown = slow == config.slowdown_by_rank.end() ? 1.0 : slow->second;
    setup.jitter_stddev = config.jitter_stddev;
    setup.seed = config.seed;
    records[size_t(rank)].trace = rank < config.trace_ranks;
    workers.push_back(
        std::make_unique<workers::Worker>(setup, plan, config.schedule, comm, records[size_t(rank)]));
    auto* worker = workers.back().get();
    sg4::Actor::create(fmt::format("worker{}", rank), sim.platform().gpus[size_t(rank)],
                       [worker] { (*worker)(); });
  }
  sim.engine().run();

  // The cluster's step time is set by the slowest worker: measure from the last worker to finish
  // the warm-up to the last worker to finish the final iteration.
  double window_begin = 0, window_end = 0;
  for (const auto& r : records) {
    window_begin = std::max(window_begin, warmup > 0 ? r.iteration_end_s[size_t(warmup - 1)] : 0.0);
    window_end = std::max(window_end, r.iteration_end_s.back());
  }
  TrainingResult result;
  result.measured_iterations = measured;
  result.step_compute_s = plan.step_compute_s();
  result.iter_time_s = (window_end - window_begin) / measured;
  for (const auto& r : records) {
    // Each worker's own window, so a straggler's compute is not cut short by the others' clocks.
    double begin = warmup > 0 ? r.iteration_end_s[size_t(warmup - 1)] : 0.0;
    double end = r.iteration_end_s.back();
    result.compute_s += workers::covered_length(r.compute, begin, end);
    const double comm = workers::covered_length(r.comm, begin, end);
    const double exposed = workers::covered_length(r.wait, begin, end);
    result.comm_s += comm;
    result.exposed_comm_s += exposed;
    result.comm_max_s = std::max(result.comm_max_s, comm / measured);
    result.exposed_comm_max_s = std::max(result.exposed_comm_max_s, exposed / measured);
  }
  const double per = static_cast<double>(p) * measured;
  result.compute_s /= per;
  result.comm_s /= per;
  result.exposed_comm_s /= per;
  result.algorithms_used = comm.choices_made();
  for (size_t rank = 0; rank < records.size(); ++rank)
    if (records[rank].trace)
      result.trace.push_back({static_cast<int>(rank), std::move(records[rank].events)});
  return result;
}

}  // namespace dasim::engine
