#include "collectives/collective_instance.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <algorithm>
#include <cmath>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {

double reduction_time_s(const CollectiveOptions& options, double bytes) {
  if (!options.reduction_compute || options.memory_bandwidth_Bps <= 0) return 0;
  return 3 * bytes / options.memory_bandwidth_Bps;
}

void post_receives(const PartContext& ctx, int channel, int count, Inbox& inbox) {
  for (int i = 0; i < count; ++i) inbox.push_back(ctx.receive_async(channel));
}

int ring_phase_messages(const CollectiveOptions& options, int ring_size) {
  if (ring_size <= 1) return 0;
  return options.granularity == Granularity::coarse ? 1 : ring_size - 1;
}

void run_ring_phase(const PartContext& ctx, int next, double next_latency_s, int ring_size,
                    double share_bytes, int channel, bool reduce, Inbox& inbox) {
  if (ring_size <= 1) return;
  const int steps = ring_size - 1;
  const double reduce_s = reduce ? reduction_time_s(ctx.options, share_bytes) : 0;
  if (ctx.options.granularity == Granularity::coarse) {
    // One flow carries all steps' bytes: the bandwidth term (n-1)/n x S / B is exact and the flow
    // pays one route latency; the other n-2 step latencies (and reductions) are added as a delay.
    auto sent = ctx.send_async(next, channel, steps * share_bytes);
    inbox.front()->wait();
    inbox.pop_front();
    sent->wait();
    double delay = (steps - 1) * next_latency_s + steps * reduce_s;
    if (delay > 0) sg4::this_actor::sleep_for(delay);
    return;
  }
  // Fine-grained: each step forwards one share to the next rank once the previous rank's share
  // of the step before has arrived (and been reduced).
  for (int s = 0; s < steps; ++s) {
    auto sent = ctx.send_async(next, channel, share_bytes);
    inbox.front()->wait();
    inbox.pop_front();
    sent->wait();
    if (reduce_s > 0) sg4::this_actor::sleep_for(reduce_s);
  }
}

void run_chain_broadcast(const PartContext& ctx, int next, bool is_root, bool is_last, double bytes) {
  const int chunks = std::clamp(static_cast<int>(std::ceil(bytes / ctx.options.tree_chunk_bytes)), 1,
                                ctx.options.tree_max_chunks);
  const double chunk = bytes / chunks;
  std::vector<sg4::CommPtr> incoming;  // pre-posted, so the upstream rank never waits for us
  if (!is_root)
    for (int c = 0; c < chunks; ++c) incoming.push_back(ctx.receive_async(kRingChannel));
  for (int c = 0; c < chunks; ++c) {
    if (!is_root) incoming[size_t(c)]->wait();
    if (!is_last) ctx.send_async(next, kRingChannel, chunk)->wait();
  }
}

}  // namespace dasim::collectives
