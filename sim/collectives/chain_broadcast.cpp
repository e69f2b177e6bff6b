// NCCL's ring broadcast: a pipelined chain from the root along each channel's ring
// (collective_instance.hpp states the timing both granularities realise).
#include "collectives/collective_instance.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <algorithm>
#include <cmath>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {

int pipeline_chunks(const CollectiveOptions& options, double bytes) {
  return std::clamp(static_cast<int>(std::ceil(bytes / options.tree_chunk_bytes)), 1,
                    options.tree_max_chunks);
}

namespace {

// The first chunk's step on a hop takes at least the protocol's hop latency; the route's own
// latency is paid by the flow, the rest here.
double first_step_floor_s(const PartContext& ctx, const RingHop& hop) {
  return std::max(0.0, ctx.instance.costs.hop_latency(hop.kind) - hop.latency_s);
}

}  // namespace

void run_chain_broadcast(const PartContext& ctx, const RingHop& hop, int root, int channel, double bytes) {
  const bool is_root = ctx.rank == root, is_last = hop.next == root;
  const int chunks = pipeline_chunks(ctx.options, bytes);
  const double wire_chunk = bytes / chunks / ctx.instance.costs.bandwidth_factor;
  Inbox incoming;  // pre-posted, so the upstream rank never waits for us
  if (!is_root) post_receives(ctx, channel, chunks, incoming);
  const double floor_s = first_step_floor_s(ctx, hop);
  for (int c = 0; c < chunks; ++c) {
    if (!is_root) {
      incoming.front()->wait();
      incoming.pop_front();
    }
    if (is_last) continue;
    if (c == 0 && floor_s > 0) sg4::this_actor::sleep_for(floor_s);
    ctx.send_async(hop.next, channel, wire_chunk)->wait();
  }
}

}  // namespace dasim::collectives
