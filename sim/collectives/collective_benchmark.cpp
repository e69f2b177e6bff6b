#include "collectives/collective_benchmark.hpp"

#include "collectives/communicator.hpp"
#include "collectives/symmetry.hpp"
#include "common/errors.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"

#include <nlohmann/json.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {

std::vector<CollectiveSample> simulate_collective_sweep(const platform::PlatformSpec& spec,
                                                        const CollectiveOptions& options, Op op,
                                                        const std::vector<double>& sizes_bytes,
                                                        int concurrent,
                                                        const std::function<void(size_t)>& on_size_done) {
  // On a symmetric platform two nodes stand for all (symmetry.hpp): each size's time is the same.
  std::vector<CollectiveCall> calls;
  for (double bytes : sizes_bytes) calls.emplace_back(op, bytes);
  platform::PlatformSpec simulated = spec;
  if (why_not_symmetric(spec, options, calls).empty()) simulated.nodes = kFoldedNodes;
  runtime::Simulation sim(simulated);
  Communicator comm(simulated, sim.platform(), options, nullptr, spec.nodes);
  const int p = comm.size();
  std::vector<double> start(sizes_bytes.size(), 0), finish(sizes_bytes.size(), 0);
  std::vector<std::string> choice(sizes_bytes.size());
  auto barrier = sg4::Barrier::create(static_cast<unsigned>(p));
  for (int rank = 0; rank < p; ++rank) {
    sg4::Actor::create("rank", sim.platform().gpus[size_t(rank)], [&, rank] {
      for (size_t i = 0; i < sizes_bytes.size(); ++i) {
        barrier->wait();
        if (rank == 0) start[i] = sg4::Engine::get_clock();
        std::vector<PendingCollectivePtr> pending;
        for (int c = 0; c < concurrent; ++c) pending.push_back(comm.start(rank, op, sizes_bytes[i]));
        if (rank == 0) choice[i] = pending.front()->choice();
        for (auto& pc : pending) {
          pc->wait();
          finish[i] = std::max(finish[i], pc->finished_at());
        }
        if (rank == 0 && on_size_done) on_size_done(i);
      }
    });
  }
  sim.engine().run();
  std::vector<CollectiveSample> samples;
  for (size_t i = 0; i < sizes_bytes.size(); ++i) {
    CollectiveSample s;
    s.bytes = sizes_bytes[i];
    s.time_s = finish[i] - start[i];
    s.algbw_Bps = s.time_s > 0 ? s.bytes / s.time_s : 0;
    s.busbw_Bps = s.algbw_Bps * bus_bandwidth_factor(op, comm.represented_size());
    s.choice = choice[i];
    samples.push_back(s);
  }
  return samples;
}

std::vector<CollectiveSample> run_collective_sweep(const platform::PlatformSpec& spec,
                                                   const CollectiveOptions& options, Op op,
                                                   const std::vector<double>& sizes_bytes, int concurrent) {
  return samples_from_wire(runtime::run_isolated(
      [&] { return to_wire(simulate_collective_sweep(spec, options, op, sizes_bytes, concurrent)); }));
}

std::string to_wire(const std::vector<CollectiveSample>& samples) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : samples) j.push_back({s.bytes, s.time_s, s.algbw_Bps, s.busbw_Bps, s.choice});
  return j.dump();
}

std::vector<CollectiveSample> samples_from_wire(const std::string& text) {
  std::vector<CollectiveSample> samples;
  for (const auto& row : nlohmann::json::parse(text))
    samples.push_back({row[0].get<double>(), row[1].get<double>(), row[2].get<double>(), row[3].get<double>(),
                       row[4].get<std::string>()});
  return samples;
}

std::vector<double> geometric_sizes(double min_bytes, double max_bytes, double factor) {
  if (!(min_bytes > 0)) throw InputError("--min-bytes must be > 0");
  if (max_bytes < min_bytes) throw InputError("--max-bytes must be >= --min-bytes");
  if (!(factor > 1)) throw InputError("--factor must be > 1");
  // nccl-tests sweeps have tens of sizes; a factor barely above 1 would simulate millions.
  const double count = std::floor(std::log(max_bytes / min_bytes) / std::log(factor)) + 1;
  if (count > 1000)
    throw InputError(
        fmt::format("--factor {} gives {:.0f} sizes from --min-bytes to --max-bytes; expected at most 1000",
                    factor, count));
  std::vector<double> sizes;
  for (double s = min_bytes; s <= max_bytes * (1 + 1e-12); s *= factor) sizes.push_back(s);
  return sizes;
}

}  // namespace dasim::collectives
