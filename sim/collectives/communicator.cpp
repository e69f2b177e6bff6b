#include "collectives/communicator.hpp"

#include "collectives/collective_instance.hpp"
#include "collectives/double_binary_tree.hpp"
#include "collectives/folded_trees.hpp"
#include "collectives/ring_order.hpp"
#include "common/errors.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {

PendingCollective::PendingCollective(int parts, double started_at,
                                     std::shared_ptr<const double> all_started_at)
    : parts_left_(parts),
      started_at_(started_at),
      all_started_at_(std::move(all_started_at)),
      done_(sg4::Semaphore::create(0)) {
  if (parts_left_ == 0) {
    finished_ = true;
    finished_at_ = started_at;
  }
}

void PendingCollective::part_done() {
  if (--parts_left_ > 0) return;
  finished_ = true;
  finished_at_ = sg4::Engine::get_clock();
  done_->release();
  if (on_finished_) std::exchange(on_finished_, nullptr)();
}

void PendingCollective::on_finished(std::function<void()> callback) {
  if (finished_)
    callback();
  else
    on_finished_ = std::move(callback);
}

void PendingCollective::wait() {
  if (finished_) return;
  done_->acquire();
  done_->release();  // later waits (or other waiters) return at once
}

namespace {

// The spec as NCCL's tuner sees it on a folded communicator: all the nodes it stands for.
platform::PlatformSpec with_nodes(platform::PlatformSpec spec, int nodes) {
  spec.nodes = nodes;
  return spec;
}

// A folded ring's hops are the represented ring's hops of each kind in proportion: the built
// nodes' ring has nodes_ net hops and nodes_ x (g - 1) inside nodes, the represented one
// represented x as many, each with the latency of the built hop of its kind.
void scale_ring_latencies(RingLatencies& ring, int built_nodes, int represented_nodes) {
  for (int k = 0; k < 3; ++k) {
    ring.count[k] =
        static_cast<int>(std::llround(static_cast<double>(ring.count[k]) * represented_nodes / built_nodes));
    ring.sum_s[k] *= static_cast<double>(represented_nodes) / built_nodes;
  }
}

// The represented ring's leaf crossings on a fat tree of several leaves, which the built nodes
// (under one leaf) do not have: the ring visits the nodes in order, switch_radix to a leaf, and
// crosses into the next leaf (and from the last back to the first) through a spine: 2 more fabric
// links than a route inside a leaf (platform_builder.cpp: 2 levels once nodes > switch_radix).
double leaf_crossings_latency_s(const platform::PlatformSpec& spec, int represented_nodes) {
  if (spec.fabric.topology != platform::FabricTopology::fat_tree ||
      represented_nodes <= spec.fabric.switch_radix)
    return 0;
  const int leaves = (represented_nodes + spec.fabric.switch_radix - 1) / spec.fabric.switch_radix;
  return leaves * 2 * spec.fabric.link.latency_s;
}

}  // namespace

Communicator::Communicator(const platform::PlatformSpec& spec, const platform::BuiltPlatform& platform,
                           CollectiveOptions options, std::shared_ptr<MailboxSlots> mailbox_slots,
                           int represented_nodes)
    : spec_(spec),
      options_(options),
      topology_(summarize_topology(with_nodes(spec, std::max(represented_nodes, platform.nodes)))),
      hosts_(platform.gpus),
      nvswitches_(platform.nvswitches),
      gpus_per_node_(platform.gpus_per_node),
      nodes_(platform.nodes),
      represented_nodes_(std::max(represented_nodes, platform.nodes)),
      instances_(platform.gpus.size()),
      polled_rings_(platform.gpus.size()),
      runners_(platform.gpus) {
  if (represented_nodes > 0 && represented_nodes < nodes_)
    throw std::logic_error(
        fmt::format("a communicator of {} nodes cannot stand for {} nodes", nodes_, represented_nodes));
  if (mailbox_slots) mailbox_slots_ = std::move(mailbox_slots);
  if (spec.nvswitch && spec.nvswitch->nvls_efficiency)
    nvls_port_factor_ = 1 / *spec.nvswitch->nvls_efficiency;
  tree_channels_ = options_.tree_channels > 0 ? options_.tree_channels : std::max(1, spec.rails());
  // NCCL's rings take different links where that adds bandwidth (a DGX-1's NVLink mesh:
  // intra_node_rings): inside one node as many as add bandwidth, across nodes one per NIC
  // (multi_ring_orders), each entering and leaving nodes through the NICs evenly.
  const auto one_node =
      represented_nodes_ == 1 ? intra_node_rings(spec, options_.ring_channels) : IntraNodeRings{};
  const auto orders =
      one_node.beats_one_ring
          ? one_node.cycles
          : multi_ring_orders(spec, options_.ring_channels > 0 ? options_.ring_channels : spec.rails());
  for (const auto& order : orders) rings_.push_back(make_ring({order}));
  auto cycle = best_intra_node_cycle(spec);
  std::vector<std::vector<int>> intra, inter(static_cast<size_t>(gpus_per_node_));
  for (int n = 0; n < nodes_; ++n) {
    std::vector<int> ring;
    for (int local : cycle) ring.push_back(n * gpus_per_node_ + local);
    intra.push_back(std::move(ring));
    for (int g = 0; g < gpus_per_node_; ++g) inter[size_t(g)].push_back(n * gpus_per_node_ + g);
  }
  intra_ = make_ring(intra);
  inter_ = make_ring(inter);
  if (folded()) {
    const double crossings_s = leaf_crossings_latency_s(spec, represented_nodes_);
    auto represent = [&](RingLatencies& latencies) {
      scale_ring_latencies(latencies, nodes_, represented_nodes_);
      latencies.sum_s[static_cast<int>(HopKind::net)] += crossings_s;
      if (crossings_s > 0) latencies.slowest_hop_extra_s = 2 * spec.fabric.link.latency_s;
    };
    for (auto& ring : rings_)
      for (auto& latencies : ring.ring_latency) represent(latencies);
    for (auto& latencies : inter_.ring_latency) represent(latencies);
  }
}

Communicator::~Communicator() = default;

Communicator::RingLinks Communicator::make_ring(const std::vector<std::vector<int>>& rings) const {
  RingLinks links;
  links.next.assign(hosts_.size(), -1);
  links.next_latency_s.assign(hosts_.size(), 0);
  links.next_kind.assign(hosts_.size(), HopKind::nvlink);
  links.ring_of.assign(hosts_.size(), 0);
  for (const auto& ring : rings) {
    RingLatencies latencies;
    for (size_t i = 0; i < ring.size(); ++i) {
      int from = ring[i], to = ring[(i + 1) % ring.size()];
      links.next[size_t(from)] = to;
      links.ring_of[size_t(from)] = static_cast<int>(links.ring_latency.size());
      if (from == to) continue;
      links.next_latency_s[size_t(from)] = route_facts(from, to).latency_s;
      links.next_kind[size_t(from)] = hop_kind(from, to);
      ++latencies.count[static_cast<int>(links.next_kind[size_t(from)])];
      latencies.sum_s[static_cast<int>(links.next_kind[size_t(from)])] += links.next_latency_s[size_t(from)];
    }
    links.ring_latency.push_back(latencies);
  }
  return links;
}

Communicator::RouteFacts Communicator::route_facts(int a, int b) const {
  std::vector<sg4::Link*> route;
  RouteFacts facts;
  hosts_[size_t(a)]->route_to(hosts_[size_t(b)], route, &facts.latency_s);
  facts.narrowest_Bps = std::numeric_limits<double>::infinity();
  for (const auto* link : route) facts.narrowest_Bps = std::min(facts.narrowest_Bps, link->get_bandwidth());
  return facts;
}

// NCCL's latency tables distinguish NVLink, PCIe and network hops.
HopKind Communicator::hop_kind(int a, int b) const {
  if (a / gpus_per_node_ != b / gpus_per_node_) return HopKind::net;
  return topology_.intra_hop;
}

std::string Communicator::choices_made() const {
  return fmt::format("{}", fmt::join(choices_, "+"));
}

void Communicator::check_call(int rank, double bytes) const {
  if (rank < 0 || rank >= size())
    throw std::logic_error(fmt::format("rank {} outside 0..{}", rank, size() - 1));
  if (!(bytes > 0)) throw InputError(fmt::format("collective size must be > 0 bytes, got {}", bytes));
  if (bytes > kMaxCollectiveBytes)
    throw InputError(fmt::format("collective size must be <= 1 PiB (2^50 bytes), got {} bytes", bytes));
}

std::shared_ptr<CollectiveInstance> Communicator::instance_for(int rank, Op op, double bytes) {
  auto joined = instances_.join(rank, [&] {
    // The same choice on every rank: a pure function of the size (NCCL's tuner is too).
    const Choice choice = choose(topology_, options_, op, bytes);
    choices_.insert(describe(choice));
    return std::make_shared<CollectiveInstance>(op, bytes, choice, mailbox_slots_);
  });
  const auto& instance = joined.object;
  if (instance->op != op || instance->bytes != bytes)
    throw std::logic_error(
        fmt::format("rank {} started collective #{} as {} of {} bytes, others as {} of {} bytes", rank,
                    joined.call, to_string(op), bytes, to_string(instance->op), instance->bytes));
  if (joined.last) *instance->all_started_at = sg4::Engine::get_clock();  // it can run from now
  return instance;
}

std::shared_ptr<PolledRing> Communicator::join_polled_ring(int rank, double bytes) {
  check_call(rank, bytes);
  if (folded()) throw std::logic_error("polled rounds on a folded communicator");
  auto joined = polled_rings_.join(rank, [&] {
    choices_.insert(kPolledRingChoice);
    return std::make_shared<PolledRing>(hosts_, rings_.front().next, bytes);
  });
  if (joined.object->bytes() != bytes)
    throw std::logic_error(fmt::format("rank {} joined polled allreduce #{} with {} bytes, others with {}",
                                       rank, joined.call, bytes, joined.object->bytes()));
  return joined.object;
}

PendingCollectivePtr Communicator::start(int rank, Op op, double bytes) {
  check_call(rank, bytes);
  const double now = sg4::Engine::get_clock();
  if (size() == 1) {  // nothing to exchange: done at once
    auto alone = std::make_shared<PendingCollective>(0, now);
    alone->set_choice("none (1 rank)");
    return alone;
  }
  auto instance = instance_for(rank, op, bytes);
  std::vector<PartBody> bodies = part_bodies(rank, op, bytes, instance->choice);
  auto pending =
      std::make_shared<PendingCollective>(static_cast<int>(bodies.size()), now, instance->all_started_at);
  pending->set_choice(describe(instance->choice));
  for (auto& body : bodies)
    runners_.run(rank, [this, instance, rank, pending, body = std::move(body)] {
      PartContext ctx{*instance, hosts_, options_, rank};
      // The protocol's base latency, once per collective (the parts wait it side by side).
      if (instance->costs.base_latency_s > 0) sg4::this_actor::sleep_for(instance->costs.base_latency_s);
      body(ctx);
      pending->part_done();
    });
  return pending;
}

std::vector<Communicator::PartBody> Communicator::part_bodies(int rank, Op op, double bytes,
                                                              const Choice& choice) {
  const bool foldable = choice.algorithm == Algorithm::ring || choice.algorithm == Algorithm::hierarchical ||
                        choice.algorithm == Algorithm::tree;
  if (folded() && (!foldable || op == Op::broadcast || options_.granularity != Granularity::coarse))
    throw std::logic_error(fmt::format("a folded communicator runs coarse rings and trees only, not {} {}",
                                       to_string(op), describe(choice)));
  switch (op) {
    case Op::reduce_scatter:
    case Op::all_gather:
      if (choice.algorithm != Algorithm::ring)
        throw InputError(fmt::format("{} is implemented with the ring algorithm only", to_string(op)));
      return ring_bodies(bytes, op == Op::reduce_scatter, op == Op::all_gather);
    case Op::broadcast:
      if (choice.algorithm != Algorithm::ring)
        throw InputError("broadcast is implemented with the ring (pipelined chain) algorithm only");
      return broadcast_bodies(bytes);
    case Op::allreduce:
      break;
  }
  switch (choice.algorithm) {
    case Algorithm::ring:
      return ring_bodies(bytes, true, true);
    case Algorithm::tree:
      return tree_bodies(bytes);
    case Algorithm::hierarchical:
      return {hierarchical_body(bytes)};
    case Algorithm::nvls:
      return {nvls_body(rank, bytes)};
    case Algorithm::automatic:
      break;  // resolved by choose()
  }
  throw std::logic_error("unhandled collective algorithm");
}

// Ring algorithms run one part per channel, each on its own ring with 1/channels of the data.
std::vector<Communicator::PartBody> Communicator::ring_bodies(double bytes, bool reduce_scatter,
                                                              bool all_gather) const {
  std::vector<PartBody> bodies;
  const int p = represented_size();  // the ring's length: its steps, shares and step latencies
  const int simulated = size();      // the ranks that end each phase together
  const double share = bytes / p / static_cast<double>(rings_.size());
  if (options_.granularity == Granularity::coarse) {
    const auto& rings = rings_;
    bodies.push_back([&rings, share, p, simulated, reduce_scatter, all_gather](const PartContext& ctx) {
      std::vector<RingHop> hops;
      std::vector<int> channels;
      std::vector<Inbox> inboxes(rings.size());
      const int phases = (reduce_scatter ? 1 : 0) + (all_gather ? 1 : 0);
      for (size_t k = 0; k < rings.size(); ++k) {
        hops.push_back(rings[k].hop(ctx.rank));
        channels.push_back(kFirstRingChannel + static_cast<int>(k));
        post_receives(ctx, channels.back(), phases * ring_phase_messages(ctx.options, p), inboxes[k]);
      }
      if (reduce_scatter) run_coarse_ring_phases(ctx, hops, p, simulated, share, channels, true, inboxes);
      if (all_gather) run_coarse_ring_phases(ctx, hops, p, simulated, share, channels, false, inboxes);
      double unbuilt_hop_s = 0;  // folded: the represented ring's slow hop (RingLatencies)
      for (const auto& hop : hops) unbuilt_hop_s = std::max(unbuilt_hop_s, hop.ring->slowest_hop_extra_s);
      if (unbuilt_hop_s > 0) sg4::this_actor::sleep_for(unbuilt_hop_s);
    });
    return bodies;
  }
  for (size_t k = 0; k < rings_.size(); ++k) {
    const RingLinks& ring = rings_[k];
    const int channel = kFirstRingChannel + static_cast<int>(k);
    bodies.push_back([&ring, channel, share, p, reduce_scatter, all_gather](const PartContext& ctx) {
      const RingHop hop = ring.hop(ctx.rank);
      Inbox inbox;
      const int phases = (reduce_scatter ? 1 : 0) + (all_gather ? 1 : 0);
      post_receives(ctx, channel, phases * ring_phase_messages(ctx.options, p), inbox);
      if (reduce_scatter) run_ring_phase(ctx, hop, 0, p, share, channel, true, inbox);
      if (all_gather) run_ring_phase(ctx, hop, 0, p, share, channel, false, inbox);
    });
  }
  return bodies;
}

// NCCL's ring broadcast: every channel's ring carries 1/channels of the buffer from the root as a
// pipelined chain, each ring leaving a node through a different NIC; one part per channel, coarse
// or fine (run_chain_broadcast says why).
std::vector<Communicator::PartBody> Communicator::broadcast_bodies(double bytes) const {
  const auto& rings = rings_;
  const double share = bytes / static_cast<double>(rings.size());
  std::vector<PartBody> bodies;
  for (size_t k = 0; k < rings.size(); ++k) {
    const RingLinks& ring = rings[k];
    const int channel = kFirstRingChannel + static_cast<int>(k);
    bodies.push_back([&ring, channel, share](const PartContext& ctx) {
      run_chain_broadcast(ctx, ring.hop(ctx.rank), kBroadcastRoot, channel, share);
    });
  }
  return bodies;
}

// NCCL's trees, two per channel, each reducing then broadcasting 1/(2 x channels) of the buffer:
// four parts per rank and channel.
std::vector<Communicator::PartBody> Communicator::tree_bodies(double bytes) {
  if (trees_.empty()) {
    if (folded()) {
      represented_trees_ = node_double_tree(represented_nodes_);
      trees_ = build_nccl_trees(spec_, tree_channels_, exchange_pair_trees(represented_trees_));
    } else {
      trees_ = build_nccl_trees(spec_, tree_channels_);
    }
    for (auto& tree : trees_)
      set_tree_edges(tree, [this](int from, int to) {
        const RouteFacts route = route_facts(from, to);
        return TreeEdge{hop_kind(from, to), route.latency_s, route.narrowest_Bps};
      });
    set_channel_sharing(trees_);
  }
  const auto& trees = trees_;
  const double share = bytes / static_cast<double>(trees.size());
  if (options_.granularity == Granularity::coarse)
    return {[&trees, represented = folded() ? &represented_trees_ : nullptr, share](const PartContext& ctx) {
      run_coarse_trees(ctx, trees, share, represented);
    }};
  std::vector<PartBody> bodies;
  for (int t = 0; t < static_cast<int>(trees.size()); ++t) {
    bodies.push_back(
        [&trees, t, share](const PartContext& ctx) { run_tree_reduce(ctx, trees[size_t(t)], t, share); });
    bodies.push_back(
        [&trees, t, share](const PartContext& ctx) { run_tree_broadcast(ctx, trees[size_t(t)], t, share); });
  }
  return bodies;
}

// NVLink SHARP on one node: the rank pushes its buffer into the switch and gets the reduced buffer
// back, S (1 + 1/n) each way (transports.cpp), at the port's NVLS rate: the flows carry the bytes
// inflated by port achieved / NVLS rate. NVLS latency (NCCL's 25 us) once.
Communicator::PartBody Communicator::nvls_body(int rank, double bytes) const {
  auto* gpu = hosts_[size_t(rank)];
  auto* nvswitch = nvswitches_.at(size_t(rank / gpus_per_node_));
  const double n = gpus_per_node_;
  const double wire = bytes * (1 + 1 / n) * nvls_port_factor_;
  return [gpu, nvswitch, wire](const PartContext& ctx) {
    std::vector<sg4::Link*> route;
    double latency = 0;
    gpu->route_to(nvswitch, route, &latency);
    const double floor = ctx.instance.costs.hop_latency(HopKind::nvlink) - latency;
    if (floor > 0) sg4::this_actor::sleep_for(floor);
    auto up = sg4::Comm::sendto_async(gpu, nvswitch, static_cast<uint64_t>(std::llround(wire)));
    auto down = sg4::Comm::sendto_async(nvswitch, gpu, static_cast<uint64_t>(std::llround(wire)));
    up->wait();
    down->wait();
  };
}

// Reduce-scatter inside the node, allreduce of 1/G of the buffer across nodes on this GPU's rail,
// all-gather inside the node.
Communicator::PartBody Communicator::hierarchical_body(double bytes) const {
  const auto& intra = intra_;
  const auto& inter = inter_;
  // n: the inter-node rings' length, all nodes a folded communicator stands for; built: its nodes.
  const int g = gpus_per_node_, n = represented_nodes_, built = nodes_;
  return [&intra, &inter, bytes, g, n, built](const PartContext& ctx) {
    // A rank posts a phase's receives when it enters that phase, so a phase's data moves only once
    // its receiver is in it: NCCL's senders stall on the receiver's few FIFO slots just so. Posted
    // up front, the first rails to leave the inter-node phase sent their whole all-gather share
    // at once and took shared PCIe links from the rails still in it (docs/studies.md, section 1).
    Inbox intra_inbox, inter_inbox;
    const double share = bytes / g / n;
    // Ring ids: the intra-node ring is its node's, the inter-node ring its local GPU index's.
    const int node = ctx.rank / g, local = ctx.rank % g;
    post_receives(ctx, kRingChannel, ring_phase_messages(ctx.options, g), intra_inbox);
    run_ring_phase(ctx, intra.hop(ctx.rank), node, g, bytes / g, kRingChannel, true, intra_inbox);
    // The rail's reduce-scatter and all-gather: every rank of the rail leaves the first together.
    post_receives(ctx, kInterRingChannel, 2 * ring_phase_messages(ctx.options, n), inter_inbox);
    run_ring_phase(ctx, inter.hop(ctx.rank), local, n, share, kInterRingChannel, true, inter_inbox, built);
    run_ring_phase(ctx, inter.hop(ctx.rank), local, n, share, kInterRingChannel, false, inter_inbox, built);
    const double unbuilt_hop_s = inter.hop(ctx.rank).ring->slowest_hop_extra_s;  // folded (RingLatencies)
    if (unbuilt_hop_s > 0) sg4::this_actor::sleep_for(unbuilt_hop_s);
    post_receives(ctx, kRingChannel, ring_phase_messages(ctx.options, g), intra_inbox);
    run_ring_phase(ctx, intra.hop(ctx.rank), node, g, bytes / g, kRingChannel, false, intra_inbox);
  };
}

}  // namespace dasim::collectives
