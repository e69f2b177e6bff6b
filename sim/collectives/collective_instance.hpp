// Internal: the state one collective call shares between its ranks' helper actors. A rank learns
// that its ring/tree neighbour's data has arrived through a counting semaphore per (rank,
// channel): the sender releases it when its flow completes, the receiver acquires it. Channels
// keep independent streams apart (the intra-node and inter-node rings of the hierarchical
// algorithm, the up and down sweeps of each tree).
#pragma once

#include "collectives/collective_types.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <vector>

namespace dasim::collectives {

constexpr int kChannels = 6;
constexpr int kRingChannel = 0;
constexpr int kInterRingChannel = 1;
constexpr int tree_up_channel(int tree) { return 2 + 2 * tree; }
constexpr int tree_down_channel(int tree) { return 3 + 2 * tree; }

struct CollectiveInstance {
  CollectiveInstance(Op op_, double bytes_, int ranks) : op(op_), bytes(bytes_), inbox(size_t(ranks) * kChannels) {}

  void signal(int rank, int channel) { semaphore(rank, channel)->release(); }
  void await(int rank, int channel) { semaphore(rank, channel)->acquire(); }

  Op op;
  double bytes;
  int started = 0;  // ranks that have called start() for this instance

 private:
  simgrid::s4u::SemaphorePtr& semaphore(int rank, int channel) {
    auto& s = inbox[size_t(rank) * kChannels + size_t(channel)];
    if (!s) s = simgrid::s4u::Semaphore::create(0);
    return s;
  }
  std::vector<simgrid::s4u::SemaphorePtr> inbox;
};

// What one rank's helper actor needs to run its part.
struct PartContext {
  CollectiveInstance& instance;
  const std::vector<simgrid::s4u::Host*>& hosts;
  const CollectiveOptions& options;
  int rank;
};

// Time to reduce `bytes` into a buffer on the GPU (read two operands, write one), or 0 when
// reduction compute is off.
double reduction_time_s(const CollectiveOptions& options, double bytes);

// One ring phase (reduce-scatter when `reduce`, all-gather otherwise) over a ring of `ring_size`
// ranks in which each step moves `share_bytes` from each rank to `next`.
void run_ring_phase(const PartContext& ctx, int next, double next_latency_s, int ring_size, double share_bytes,
                    int channel, bool reduce);

// Pipelined chain broadcast from the ring's first rank (`is_root`); `is_last` ranks do not forward.
void run_chain_broadcast(const PartContext& ctx, int next, bool is_root, bool is_last, double bytes);

}  // namespace dasim::collectives
