// The asynchronous collective API a worker actor uses:
//
//   auto pending = comm.start(rank, Op::allreduce, bucket_bytes);  // returns at once
//   ... keep computing (exec on the GPU host) ...
//   pending->wait();                                                // or pending->test()
//
// Each rank's part of a collective runs in helper actors on that rank's GPU host and moves real
// SimGrid flows over the platform's routes, so PCIe, NVLink, NIC and fabric contention (including
// between several collectives in flight) is modelled. Every rank must start the same sequence of
// collectives (SPMD): the k-th start of each rank belongs to the same collective.
#pragma once

#include "collectives/call_matcher.hpp"
#include "collectives/collective_instance.hpp"
#include "collectives/collective_types.hpp"
#include "collectives/double_binary_tree.hpp"
#include "collectives/nccl_model.hpp"
#include "collectives/part_runners.hpp"
#include "collectives/polled_ring.hpp"
#include "platform/platform_builder.hpp"
#include "platform/platform_spec.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dasim::collectives {

class PendingCollective {
 public:
  // all_started_at: when the last rank started it (null: this rank alone, at started_at).
  PendingCollective(int parts, double started_at, std::shared_ptr<const double> all_started_at = nullptr);
  bool test() const { return finished_; }
  void wait();  // blocks the calling actor until this rank holds its result
  double started_at() const { return started_at_; }
  double finished_at() const { return finished_at_; }
  // When every rank had started it, so it could run: [all_started_at, finished_at] is the time it
  // was active (known once it has finished).
  double all_started_at() const { return all_started_at_ ? *all_started_at_ : started_at_; }
  // The algorithm/protocol it runs ("ring/simple"); empty on a single rank.
  const std::string& choice() const { return choice_; }
  void set_choice(std::string choice) { choice_ = std::move(choice); }

  void part_done();  // called by this rank's helper actors
  // Runs `callback` in the actor whose part finishes the collective, at that instant (at once if
  // it has finished): what must happen exactly then, without an actor waiting for it.
  void on_finished(std::function<void()> callback);

 private:
  int parts_left_;
  bool finished_ = false;
  double started_at_;
  double finished_at_ = -1;
  std::shared_ptr<const double> all_started_at_;
  std::string choice_;
  simgrid::s4u::SemaphorePtr done_;
  std::function<void()> on_finished_;
};
using PendingCollectivePtr = std::shared_ptr<PendingCollective>;

// The rank a broadcast starts from (nccl-tests' default root).
inline constexpr int kBroadcastRoot = 0;

// What a polled-rounds allreduce runs: one ring on the bare links (MPI's, no NCCL protocol).
inline constexpr const char* kPolledRingChoice = "ring/links";

class Communicator {
 public:
  // `platform` may be a part of the built platform (platform::node_range: an island of whole
  // nodes) with `spec` sized to it; communicators of one simulation share `mailbox_slots`, so
  // their collectives' mailboxes never collide (null: this communicator's own).
  //
  // `represented_nodes` > spec.nodes folds a symmetric communicator (engine/symmetric_fold.hpp):
  // the built nodes stand for that many, every collective is sized and chosen as on all of them
  // (its shares, ring steps and step latencies, NCCL's algorithm and protocol), and the built
  // ranks move the flows one node's ring or tree traffic puts on its links. Coarse rings and
  // trees only (collectives/folded_trees.hpp): NVLS, fine granularity, broadcast or polled rounds
  // on a folded communicator is a logic_error (the fold's eligibility rules them out first).
  Communicator(const platform::PlatformSpec& spec, const platform::BuiltPlatform& platform,
               CollectiveOptions options, std::shared_ptr<MailboxSlots> mailbox_slots = nullptr,
               int represented_nodes = 0);
  ~Communicator();

  int size() const { return static_cast<int>(hosts_.size()); }  // ranks simulated
  // Ranks the collectives are sized for: size(), or all the ranks a folded communicator stands for.
  int represented_size() const { return represented_nodes_ * gpus_per_node_; }
  bool folded() const { return represented_nodes_ != nodes_; }
  const CollectiveOptions& options() const { return options_; }
  // The algorithm/protocol pairs the collectives started so far ran, sorted and "+"-joined
  // ("ring/simple+tree/ll"): what `auto` resolved to.
  std::string choices_made() const;

  // Starts `rank`'s part of a collective over all ranks (bytes: the full buffer, as nccl-tests
  // counts it). Must be called from an actor; returns immediately.
  PendingCollectivePtr start(int rank, Op op, double bytes);
  // progress polled_rounds: `rank`'s next allreduce as a PolledRing over the first ring, the same
  // object for the k-th call of every rank (SPMD), which the rank then drives itself.
  std::shared_ptr<PolledRing> join_polled_ring(int rank, double bytes);

  // Ring neighbours: next rank, the latency of the route to it and what it crosses, per ring kind.
  struct RingLinks {
    std::vector<int> next;
    std::vector<double> next_latency_s;
    std::vector<HopKind> next_kind;
    std::vector<int> ring_of;                 // per rank: which of the rings it belongs to
    std::vector<RingLatencies> ring_latency;  // per ring
    RingHop hop(int rank) const {
      return {next[size_t(rank)], next_latency_s[size_t(rank)], next_kind[size_t(rank)],
              &ring_latency[size_t(ring_of[size_t(rank)])]};
    }
  };

 private:
  // What one rank does for one collective, each part in a helper actor of its own (runners_).
  using PartBody = std::function<void(const PartContext&)>;
  std::vector<PartBody> part_bodies(int rank, Op op, double bytes, const Choice& choice);
  std::vector<PartBody> ring_bodies(double bytes, bool reduce_scatter, bool all_gather) const;
  std::vector<PartBody> broadcast_bodies(double bytes) const;
  std::vector<PartBody> tree_bodies(double bytes);
  PartBody hierarchical_body(double bytes) const;
  PartBody nvls_body(int rank, double bytes) const;
  HopKind hop_kind(int a, int b) const;
  // The route from rank a to rank b: its latency and its narrowest link's rate (one lookup).
  struct RouteFacts {
    double latency_s = 0;
    double narrowest_Bps = 0;
  };
  RouteFacts route_facts(int a, int b) const;

  void check_call(int rank, double bytes) const;  // a rank of this communicator, bytes > 0
  std::shared_ptr<CollectiveInstance> instance_for(int rank, Op op, double bytes);
  RingLinks make_ring(const std::vector<std::vector<int>>& rings) const;

  platform::PlatformSpec spec_;
  CollectiveOptions options_;
  TopologySummary topology_;  // what NCCL's tuner looks at (auto)
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<simgrid::s4u::Host*> nvswitches_;  // per node, for NVLS
  double nvls_port_factor_ = 1;  // port achieved rate / NVLS rate: NVLS bytes are inflated by it
  int tree_channels_ = 1;
  std::set<std::string> choices_;
  int gpus_per_node_ = 1;
  int nodes_ = 1;                 // built
  int represented_nodes_ = 1;     // what the collectives are sized for (nodes_ unless folded)
  std::vector<RingLinks> rings_;  // the flat ring's channels
  RingLinks intra_, inter_;
  std::vector<BinaryTree> trees_;                // 2 per tree channel, built on the first tree allreduce
  std::array<BinaryTree, 2> represented_trees_;  // folded: the node-level trees trees_ stand for
  CallMatcher<CollectiveInstance> instances_;
  CallMatcher<PolledRing> polled_rings_;
  PartRunners runners_;  // the actors the parts run in, reused from one collective to the next
  std::shared_ptr<MailboxSlots> mailbox_slots_ = std::make_shared<MailboxSlots>();
};

}  // namespace dasim::collectives
