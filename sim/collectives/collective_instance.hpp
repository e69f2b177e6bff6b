// Internal: the state one collective call shares between its ranks' helper actors. Data moves as
// mailbox messages: rank r's channel c of this collective is a mailbox the ring/tree neighbour
// puts to and r gets from, so "the neighbour's data has arrived" is simply a completed get.
// Channels keep independent streams apart (the intra-node and inter-node rings of the
// hierarchical algorithm, the up and down sweeps of each tree). Mailboxes are named by a slot that
// is reused once the collective is over, so a long simulation does not pile up mailboxes.
//
// (Host-to-host Comm::sendto would avoid mailboxes, but SimGrid 3.32 keeps every such detached
// comm in one global list and removes each finished one by a linear scan: quadratic at 16k ranks.)
#pragma once

#include "collectives/collective_types.hpp"
#include "collectives/nccl_model.hpp"

#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace dasim::collectives {

constexpr int kRingChannel = 0;
constexpr int kInterRingChannel = 1;
constexpr int tree_up_channel(int tree) {
  return 2 + 2 * tree;
}
constexpr int tree_down_channel(int tree) {
  return 3 + 2 * tree;
}
constexpr int kFirstRingChannel = 8;  // ring channel k uses mailbox channel 8 + k
// phase_end() key of the coarse tree's start: every rank of the collective has arrived (phase 0 of
// tree_up_channel(0) is its end).
constexpr int kTreeArrivalPhase = 1;
// (One collective runs one algorithm, so tree channels 2 + 2t may reach the ring channels' numbers
// without sharing a mailbox: mailboxes belong to one collective.)

// Mailbox name slots of the collectives in flight; a slot is free again when its collective ends.
class MailboxSlots {
 public:
  int acquire();
  void release(int slot) { in_use_[size_t(slot)] = false; }

 private:
  std::vector<bool> in_use_;
};

struct CollectiveInstance {
  CollectiveInstance(Op op_, double bytes_, Choice choice_, std::shared_ptr<MailboxSlots> slots_);
  ~CollectiveInstance();
  CollectiveInstance(const CollectiveInstance&) = delete;
  CollectiveInstance& operator=(const CollectiveInstance&) = delete;

  simgrid::s4u::Mailbox* mailbox(int rank, int channel) const;
  // Lets a tree root's broadcast sweep know that chunk c has been fully reduced.
  simgrid::s4u::SemaphorePtr root_reduced(int tree);
  // The end of one ring phase, shared by the `size` ranks of one ring: with coarse flows each rank
  // moves a phase's bytes in one flow, and a rank whose flow is fast must not finish before the
  // data it forwards could have come round the slowest hop (with fine messages the steps see to it).
  simgrid::s4u::BarrierPtr phase_end(int channel, int phase, int ring, int size);
  // What the coarse tree model records of one tree's flows (double_binary_tree.cpp).
  struct CoarseTree {
    double flows_began = 0;         // when the last part arrived: every flow runs from then on
    std::vector<double> up_done;    // per rank, when its flow to its parent ended
    std::vector<double> down_done;  // per rank, when its flow from its parent ended
    double ends_at = -1;            // when the pipeline it stands for ends (-1: not known yet)
  };
  CoarseTree& coarse_tree(int tree, int ranks);

  Op op;
  double bytes;
  Choice choice;        // the algorithm and protocol this collective runs (auto resolved)
  ProtocolCosts costs;  // what that protocol costs it
  // When the last rank called start(): the collective can only make progress from then on. Shared
  // with the ranks' PendingCollectives, which outlive the instance.
  std::shared_ptr<double> all_started_at = std::make_shared<double>(-1);

 private:
  std::shared_ptr<MailboxSlots> slots;
  int slot;
  std::map<int, simgrid::s4u::SemaphorePtr> reduced;
  std::map<std::tuple<int, int, int>, simgrid::s4u::BarrierPtr> phase_ends;
  std::map<int, CoarseTree> coarse_trees;
};

// What one rank's helper actor needs to run its part.
struct PartContext {
  CollectiveInstance& instance;
  const std::vector<simgrid::s4u::Host*>& hosts;
  const CollectiveOptions& options;
  int rank;

  // Starts sending `bytes` to `to`'s mailbox on `channel`; the flow starts when `to` receives.
  simgrid::s4u::CommPtr send_async(int to, int channel, double bytes) const;
  // Posts a receive now (like a pre-posted buffer: the sender's flow can start at once).
  simgrid::s4u::CommPtr receive_async(int channel) const;
};

// Time to reduce `bytes` into a buffer on the GPU (read two operands, write one), or 0 when
// reduction compute is off.
double reduction_time_s(const CollectiveOptions& options, double bytes);

// Receives a rank has posted in advance on one channel, consumed in order. Posting every receive
// of a collective when it starts lets a neighbour's data flow as soon as it is sent (NCCL's
// buffers), instead of waiting until this rank reaches that phase; it also keeps the flows of a
// phase starting together, which keeps the simulation fast.
using Inbox = std::deque<simgrid::s4u::CommPtr>;
void post_receives(const PartContext& ctx, int channel, int count, Inbox& inbox);
// Messages one ring phase receives: 1 (coarse), ring_size - 1 (fine), 0 for a ring of one.
int ring_phase_messages(const CollectiveOptions& options, int ring_size);

// The latencies of one ring's hops by what they cross: a ring phase's latency is the sum of its
// hops' step latencies (data goes round the ring), each at least the protocol's for its kind.
struct RingLatencies {
  int count[3] = {0, 0, 0};
  double sum_s[3] = {0, 0, 0};
  // A folded ring: how much longer than its built hops the represented ring's slowest hop is (a
  // leaf crossing). The whole ring's first phase ends that much later for the ranks whose own hop
  // is short (its end waits for the slow hop's flow); the ranks behind the slow hop start the next
  // phase that much earlier, which evens the later phases out: the collective ends that much
  // later, once (the folded ring sleeps it after its phases).
  double slowest_hop_extra_s = 0;
  // Sum over the ring's hops of max(route latency, protocol floor), taken per kind (exact when the
  // hops of one kind have equal latencies, as on the presets).
  double step_latency_sum(const ProtocolCosts& costs) const;
};

// A rank's hop to its ring neighbour: who, the route's latency, what the route crosses, and the
// latencies of the whole ring it belongs to.
struct RingHop {
  int next = -1;
  double latency_s = 0;
  HopKind kind = HopKind::nvlink;
  const RingLatencies* ring = nullptr;
};

// One ring phase (reduce-scatter when `reduce`, all-gather otherwise) over ring number `ring` of
// `ring_size` ranks in which each step moves `share_bytes` from each rank to its next; the phase's
// receives come from `inbox` (posted on `channel`). Each step takes at least the protocol's
// latency for the hop, and the bytes on the wire are share / the protocol's bandwidth factor.
// `simulated_ranks` of the ring's ranks run (a folded ring's; 0: all) and end a coarse phase together.
void run_ring_phase(const PartContext& ctx, const RingHop& hop, int ring, int ring_size, double share_bytes,
                    int channel, bool reduce, Inbox& inbox, int simulated_ranks = 0);

// Coarse granularity, every channel's ring at once from one actor per rank (an actor per rank and
// channel made actor switching the cost of 8-channel rings): ring k sends to hops[k].next on
// channels[k] and receives from inboxes[k]; all rings end the phase together, after the slowest
// ring's step latencies. `ring_size` ranks make the ring's steps; `simulated_ranks` of them run
// (fewer on a folded communicator) and end the phase together.
void run_coarse_ring_phases(const PartContext& ctx, const std::vector<RingHop>& hops, int ring_size,
                            int simulated_ranks, double share_bytes, const std::vector<int>& channels,
                            bool reduce, std::vector<Inbox>& inboxes);

// Chunks of a pipelined sweep of `bytes` (chain broadcast, tree sweeps): one per
// options.tree_chunk_bytes, at least 1 and at most options.tree_max_chunks.
int pipeline_chunks(const CollectiveOptions& options, double bytes);

// Pipelined chain broadcast of `bytes` on one ring, from `root` along the ring to the rank before
// it (NCCL's ring broadcast; each channel runs one on its own ring with its share of the buffer).
// The bytes move in pipeline_chunks chunks: a rank forwards a chunk to hop.next once it has arrived
// and its previous send is done, so a chunk's step on a hop takes the route's latency + chunk / its
// rate, the first chunk's at least the protocol's hop latency (the pipeline's fill, as NCCL's n
// steps of hop latency). On P ranks whose hops all take t per chunk: (chunks + P - 2) x t.
// Both granularities run it so: coarse flows cannot stand for the chunks here, since the
// channels' chains start together at the root and their chunks share the NVLink ports in
// lockstep, which one flow per hop, all at once, overstates; and its messages are bounded
// (channels x tree_max_chunks per rank) where a fine ring's grow with the ranks.
void run_chain_broadcast(const PartContext& ctx, const RingHop& hop, int root, int channel, double bytes);

}  // namespace dasim::collectives
