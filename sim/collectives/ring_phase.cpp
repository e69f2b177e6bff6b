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

double RingLatencies::step_latency_sum(const ProtocolCosts& costs) const {
  double total = 0;
  for (HopKind kind : {HopKind::nvlink, HopKind::pci, HopKind::net}) {
    const int k = static_cast<int>(kind);
    total += std::max(sum_s[k], count[k] * costs.hop_latency(kind));
  }
  return total;
}

namespace {

// Coarse flows: the latency a ring phase still owes once its flows are done. The last data a rank
// receives has come round every hop but its own outgoing one, and its flow has paid one route
// latency.
double coarse_latency_left_s(const RingHop& hop, const ProtocolCosts& costs, int ring_size) {
  const double step_latency = std::max(hop.latency_s, costs.hop_latency(hop.kind));
  const double ring_latency = hop.ring ? hop.ring->step_latency_sum(costs) : ring_size * step_latency;
  return ring_latency - step_latency - hop.latency_s;
}

}  // namespace

void run_ring_phase(const PartContext& ctx, const RingHop& hop, int ring, int ring_size, double share_bytes,
                    int channel, bool reduce, Inbox& inbox, int simulated_ranks) {
  if (ring_size <= 1) return;
  const int steps = ring_size - 1;
  const double reduce_s = reduce ? reduction_time_s(ctx.options, share_bytes) : 0;
  const auto& costs = ctx.instance.costs;
  const double wire_share = share_bytes / costs.bandwidth_factor;
  const double step_latency = std::max(hop.latency_s, costs.hop_latency(hop.kind));
  if (ctx.options.granularity == Granularity::coarse) {
    // One flow carries all steps' bytes: the bandwidth term (n-1)/n x S / B is exact and the flow
    // pays one route latency; the other steps' latencies (and reductions) are added as a delay,
    // once every flow of the ring's phase is done.
    auto sent = ctx.send_async(hop.next, channel, steps * wire_share);
    inbox.front()->wait();
    inbox.pop_front();
    sent->wait();
    ctx.instance.phase_end(channel, reduce ? 0 : 1, ring, simulated_ranks > 0 ? simulated_ranks : ring_size)
        ->wait();
    const double delay = coarse_latency_left_s(hop, costs, ring_size) + steps * reduce_s;
    if (delay > 0) sg4::this_actor::sleep_for(delay);
    return;
  }
  // Fine-grained: each step forwards one share to the next rank once the previous rank's share
  // of the step before has arrived (and been reduced).
  const double extra_latency = step_latency - hop.latency_s;
  for (int s = 0; s < steps; ++s) {
    auto sent = ctx.send_async(hop.next, channel, wire_share);
    inbox.front()->wait();
    inbox.pop_front();
    sent->wait();
    if (extra_latency + reduce_s > 0) sg4::this_actor::sleep_for(extra_latency + reduce_s);
  }
}

void run_coarse_ring_phases(const PartContext& ctx, const std::vector<RingHop>& hops, int ring_size,
                            int simulated_ranks, double share_bytes, const std::vector<int>& channels,
                            bool reduce, std::vector<Inbox>& inboxes) {
  if (ring_size <= 1) return;
  const int steps = ring_size - 1;
  const auto& costs = ctx.instance.costs;
  const double wire = steps * share_bytes / costs.bandwidth_factor;
  std::vector<sg4::CommPtr> sent;
  for (size_t k = 0; k < hops.size(); ++k) sent.push_back(ctx.send_async(hops[k].next, channels[k], wire));
  for (auto& inbox : inboxes) {
    inbox.front()->wait();
    inbox.pop_front();
  }
  for (auto& s : sent) s->wait();
  // One barrier for all channels: every rank's flows of this phase are done.
  ctx.instance.phase_end(channels.front(), reduce ? 0 : 1, 0, simulated_ranks)->wait();
  double latency = 0;  // the slowest ring's
  for (const auto& hop : hops) latency = std::max(latency, coarse_latency_left_s(hop, costs, ring_size));
  const double delay = latency + (reduce ? steps * reduction_time_s(ctx.options, share_bytes) : 0);
  if (delay > 0) sg4::this_actor::sleep_for(delay);
}

}  // namespace dasim::collectives
