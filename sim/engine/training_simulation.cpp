#include "engine/training_simulation.hpp"

#include "engine/symmetric_fold.hpp"

#include "collectives/communicator.hpp"
#include "common/joined.hpp"
#include "platform/platform_builder.hpp"
#include "platform/platform_variants.hpp"
#include "runtime/simulation.hpp"
#include "schedules/periods.hpp"
#include "workers/worker.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <set>

namespace sg4 = simgrid::s4u;

namespace dasim::engine {

namespace {

// Mixed sites: the step plan of each site's GPUs, computed with the site's calibration; one plan
// for every GPU otherwise.
std::vector<workers::StepPlan> plans_by_site(const TrainingConfig& config, int ranks) {
  if (config.site_calibrations.empty() || !config.platform.mixed_sites())
    return {plan_training_step(config, ranks)};
  std::vector<workers::StepPlan> plans;
  TrainingConfig site = config;
  for (const auto& calibration : config.site_calibrations) {
    site.calibration = calibration;
    plans.push_back(plan_training_step(site, ranks));
  }
  return plans;
}

}  // namespace

TrainingResult simulate_training(const TrainingConfig& config) {
  const int represented = config.platform.total_gpus();
  const auto plans = plans_by_site(config, represented);
  const auto& plan = plans.front();
  const int warmup = static_cast<int>(schedules::whole_periods(config.warmup_iterations, config.schedule));
  const int measured =
      static_cast<int>(schedules::whole_periods(std::max(1, config.measured_iterations), config.schedule));

  // On a symmetric run two nodes stand for all; their ranks' figures are every rank's.
  const FoldDecision fold = decide_fold(config, plan);
  platform::PlatformSpec simulated = config.platform;
  simulated.nodes = fold.simulated_nodes;
  runtime::Simulation sim(simulated);
  auto mailbox_slots = std::make_shared<collectives::MailboxSlots>();
  collectives::Communicator comm(simulated, sim.platform(), config.collective, mailbox_slots,
                                 config.platform.nodes);
  const int p = comm.size();
  // Hierarchical data parallelism: one communicator per island of whole nodes (its buckets'
  // allreduce); a run with fewer GPUs than an island (the 1-GPU baseline) is one island. (Islands
  // are never folded.)
  const int island_gpus =
      schedules::has_islands(config.schedule) ? std::min(config.schedule.island_gpus, p) : 1;
  std::vector<std::unique_ptr<collectives::Communicator>> islands;
  if (island_gpus > 1) {
    const int island_nodes = island_gpus / config.platform.gpus_per_node;
    for (int first = 0; first < config.platform.nodes; first += island_nodes) {
      // The node type of the island's (first) site, whose NCCL tuner and rings its collectives see.
      platform::PlatformSpec island_spec = config.platform.site_platform(config.platform.site_of_node(first));
      island_spec.nodes = island_nodes;
      island_spec.sites = {};
      islands.push_back(std::make_unique<collectives::Communicator>(
          island_spec, platform::node_range(sim.platform(), first, island_nodes), config.collective,
          mailbox_slots));
    }
  }
  // Sharded islands (fsdp inside, as HSDP): GPU r of every island holds the same shard, and those
  // GPUs average it among themselves, one communicator per GPU index.
  std::vector<std::unique_ptr<collectives::Communicator>> peers;
  if (island_gpus > 1 && schedules::has_sharded_steps(config.schedule))
    for (int r = 0; r < island_gpus; ++r)
      peers.push_back(std::make_unique<collectives::Communicator>(
          platform::gpu_peers(config.platform, p / island_gpus, r % config.platform.gpus_per_node),
          platform::gpu_stride(sim.platform(), r, island_gpus), config.collective, mailbox_slots));
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
    setup.island_rank = rank % island_gpus;
    setup.island = rank / island_gpus;
    const size_t site =
        plans.size() > 1 ? size_t(config.platform.site_of_node(rank / config.platform.gpus_per_node)) : 0;
    setup.interference =
        (config.site_calibrations.empty() ? config.calibration : config.site_calibrations[site])
            .fitted.compute_slowdown_under_collective;
    records[size_t(rank)].trace = rank < config.trace_ranks;
    workers.push_back(std::make_unique<workers::Worker>(
        setup, plans[site], config.schedule, comm, records[size_t(rank)],
        islands.empty() ? nullptr : islands[size_t(rank / island_gpus)].get(),
        peers.empty() ? nullptr : peers[size_t(rank % island_gpus)].get()));
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
  result.simulated_nodes = fold.simulated_nodes;
  result.fold_why_not = fold.why_not;
  for (const auto& site_plan : plans)  // the slowest GPU type's, with mixed sites
    result.step_compute_s = std::max(result.step_compute_s, site_plan.step_compute_s());
  result.iter_time_s = (window_end - window_begin) / measured;
  for (const auto& r : records) {
    // Each worker's own window, so a straggler's compute is not cut short by the others' clocks.
    double begin = warmup > 0 ? r.iteration_end_s[size_t(warmup - 1)] : 0.0;
    double end = r.iteration_end_s.back();
    result.compute_s += workers::covered_length(r.compute, begin, end);
    result.compute_slowdown_s += workers::slowdown_in(r.slowed, begin, end);
    const double comm = workers::covered_length(r.comm, begin, end);
    const double exposed = workers::covered_length(r.wait, begin, end);
    result.comm_s += comm;
    result.exposed_comm_s += exposed;
    result.input_wait_s += workers::covered_length(r.input, begin, end);
    result.comm_max_s = std::max(result.comm_max_s, comm / measured);
    result.exposed_comm_max_s = std::max(result.exposed_comm_max_s, exposed / measured);
  }
  const double per = static_cast<double>(p) * measured;
  result.compute_s /= per;
  result.compute_slowdown_s /= per;
  result.comm_s /= per;
  result.exposed_comm_s /= per;
  result.input_wait_s /= per;
  result.algorithms_used = comm.choices_made();
  if (!islands.empty()) {  // what ran inside the islands too
    std::set<std::string> all;
    auto add = [&](const std::string& joined) {  // "a+b": each choice once
      for (auto& choice : split_joined(joined, '+')) all.insert(std::move(choice));
    };
    add(comm.choices_made());
    for (const auto& island : islands) add(island->choices_made());
    for (const auto& group : peers) add(group->choices_made());
    result.algorithms_used = fmt::format("{}", fmt::join(all, "+"));
  }
  for (size_t rank = 0; rank < records.size(); ++rank)
    if (records[rank].trace)
      result.trace.push_back({static_cast<int>(rank), std::move(records[rank].events)});
  return result;
}

}  // namespace dasim::engine
