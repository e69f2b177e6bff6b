#include "collectives/nccl_model.hpp"

#include "collectives/ring_order.hpp"
#include "common/errors.hpp"
#include "platform/node_routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dasim::collectives {
namespace {

constexpr double us = 1e-6;

// NCCL v2.30.7 ncclTunerConstantsDefaults, indexed by protocol as NCCL orders them: LL, LL128, Simple.
constexpr int proto_index(Protocol p) {
  return p == Protocol::ll ? 0 : p == Protocol::ll128 ? 1 : 2;
}
constexpr double kBaseLatency[2][3] = {{6.8, 14.0, 8.4},   // tree
                                       {6.6, 14.0, 8.4}};  // ring (and hierarchical's rings)
// hwLatencies[NVLINK | PCI | NET][tree | ring][LL, LL128, Simple]
constexpr double kHopLatency[3][2][3] = {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
                                         {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
                                         {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}};
constexpr double kNvlsHopLatency = 25.0;  // hwLatencies[NVLINK][NVLS][Simple]; base latency 0

// Fraction of the achieved rate: ring LL 8 of 16 bytes, LL128 0.92 (NCCL's 120/128 with margin);
// tree 0.92 for every protocol, then LL / 3.8 and LL128 x 120/128 (tuning.cc).
double bandwidth_factor(Algorithm a, Protocol p) {
  if (a == Algorithm::tree)
    return p == Protocol::ll ? 0.92 / 3.8 : p == Protocol::ll128 ? 0.92 * 120 / 128 : 0.92;
  return p == Protocol::ll ? 0.5 : p == Protocol::ll128 ? 0.92 : 1.0;
}

// NCCL v2.30.7 llMaxBws (tuning.cc), GB/s of bus bandwidth LL never exceeds. Inside one node the
// row is the GPU generation's; across nodes it is the host CPU's (AMD its own, every other vendor
// the first row, NCCL's Intel one), one column for 2 nodes and one for more.
double ll_max_busbw_Bps(platform::GpuGeneration generation, platform::CpuVendor cpu, int nodes) {
  using platform::GpuGeneration;
  if (generation == GpuGeneration::unknown) return std::numeric_limits<double>::infinity();
  if (nodes == 1) {
    switch (generation) {
      case GpuGeneration::volta:
        return 39.0e9;
      case GpuGeneration::ampere:
        return 87.7e9;
      case GpuGeneration::hopper:
        return 141.0e9;
      case GpuGeneration::blackwell:
        return 2 * 141.0e9;
      case GpuGeneration::unknown:
        break;
    }
    return std::numeric_limits<double>::infinity();
  }
  const bool amd = cpu == platform::CpuVendor::amd;
  if (nodes == 2) return amd ? 22.5e9 : 39.0e9;
  return amd ? 19.0e9 : 20.4e9;
}

double hop_latency(HopKind kind, Algorithm a, Protocol p) {
  if (a == Algorithm::nvls) return kNvlsHopLatency * us;
  return kHopLatency[static_cast<int>(kind)][a == Algorithm::tree ? 0 : 1][proto_index(p)] * us;
}

// Bus bandwidth the algorithm reaches at large sizes before the protocol's factor: NCCL's busBw
// (channels x the graph's bandwidth per channel, tuning.cc), which for a ring and a tree is the same
// graph bandwidth (the slowest ring hop inside a node, the node's NICs across nodes). NCCL's tuner
// gives the tree no two-node advantage: it converts the tree's busBw to an algorithm bandwidth
// with a ratio of 0.5 (algorithm_time_factor), where the ring's is n / 2(n-1).
double algorithm_busbw_Bps(const TopologySummary& t, Algorithm a) {
  if (a == Algorithm::nvls) {
    // Every port moves S(1 + 1/n) each way (transports.cpp): busbw = 2(n-1)/(n+1) x the port.
    const double n = t.ranks;
    return 2 * (n - 1) / (n + 1) * t.nvls_port_Bps;
  }
  const double intra =
      a == Algorithm::ring && t.flat_rings_intra_Bps > 0 ? t.flat_rings_intra_Bps : t.ring_intra_Bps;
  if (t.nodes == 1) return intra;
  return std::min(intra, t.node_nic_Bps);
}

// Seconds per byte per unit of busBw: the inverse of NCCL's busBw-to-algorithm-bandwidth ratio
// (nsteps / n for the ring and NVLS, 2 for the tree).
double algorithm_time_factor(const TopologySummary& t, Op op, Algorithm a) {
  if (a == Algorithm::tree) return 2.0;
  const double n = t.ranks;
  return op == Op::allreduce ? 2 * (n - 1) / n : op == Op::broadcast ? 1 : (n - 1) / n;
}

double algorithm_latency_s(const TopologySummary& t, Op op, Algorithm a, Protocol p) {
  if (a == Algorithm::nvls) return hop_latency(HopKind::nvlink, a, p);
  const Algorithm table = a == Algorithm::tree ? Algorithm::tree : Algorithm::ring;
  const double base = kBaseLatency[table == Algorithm::tree ? 0 : 1][proto_index(p)] * us;
  double intra = hop_latency(t.intra_hop, table, p);
  // With one GPU per node NCCL charges a ring's network hops at the tree's latency (nothing hides
  // them), and in a ring across nodes no hop is cheaper than the proxy's network overhead (1 us on
  // x86, x3 for Simple: getNetOverhead in tuning.cc).
  const double net = hop_latency(HopKind::net, t.gpus_per_node == 1 ? Algorithm::tree : table, p);
  if (a == Algorithm::tree)
    return base + 2 * ((t.gpus_per_node - 1) * intra + std::log2(std::max(1, t.nodes)) * net);
  if (t.nodes > 1) intra = std::max(intra, (p == Protocol::simple ? 3.0 : 1.0) * us);
  // Ring: 2(n-1) steps for an allreduce (n-1 for reduce-scatter and all-gather, n for a broadcast),
  // 2(nodes-1) (or nodes-1) of them across the network.
  const int n = t.ranks;
  const int steps = op == Op::allreduce ? 2 * (n - 1) : op == Op::broadcast ? n : n - 1;
  const int net_steps = t.nodes == 1 ? 0 : op == Op::allreduce ? 2 * (t.nodes - 1) : t.nodes - 1;
  return base + (steps - net_steps) * intra + net_steps * net;
}

}  // namespace

ProtocolCosts protocol_costs(Algorithm algorithm, Protocol protocol) {
  ProtocolCosts costs;
  if (protocol == Protocol::links || protocol == Protocol::automatic) return costs;
  const Algorithm table = algorithm == Algorithm::tree ? Algorithm::tree : Algorithm::ring;
  costs.bandwidth_factor = algorithm == Algorithm::nvls ? 1.0 : bandwidth_factor(table, protocol);
  costs.base_latency_s = algorithm == Algorithm::nvls
                             ? 0.0
                             : kBaseLatency[table == Algorithm::tree ? 0 : 1][proto_index(protocol)] * us;
  for (HopKind kind : {HopKind::nvlink, HopKind::pci, HopKind::net})
    costs.hop_latency_s[static_cast<int>(kind)] =
        hop_latency(kind, algorithm == Algorithm::nvls ? algorithm : table, protocol);
  return costs;
}

TopologySummary summarize_topology(const platform::PlatformSpec& spec) {
  TopologySummary t;
  t.ranks = spec.total_gpus();
  t.nodes = spec.nodes;
  t.gpus_per_node = spec.gpus_per_node;
  const int g = spec.gpus_per_node;
  t.ring_intra_Bps = std::numeric_limits<double>::infinity();
  if (g > 1) {
    const auto route = platform::gpu_to_gpu_route(spec, 0, 1);
    const auto cls = route.front().cls;
    t.intra_hop = cls == platform::LinkClass::nvswitch_port || cls == platform::LinkClass::nvlink
                      ? HopKind::nvlink
                      : HopKind::pci;
    const auto cycle = best_intra_node_cycle(spec);
    for (int i = 0; i < g; ++i) {
      const int a = cycle[size_t(i)], b = cycle[size_t((i + 1) % g)];
      t.ring_intra_Bps =
          std::min(t.ring_intra_Bps,
                   platform::route_figures(spec, platform::gpu_to_gpu_route(spec, a, b)).bandwidth_Bps);
    }
    // NCCL's rings over different links together (a DGX-1's NVLinks): inside one node as many as
    // add bandwidth, across nodes one per NIC, as the simulated rings run.
    const auto rings = intra_node_rings(spec, spec.nodes == 1 ? 0 : spec.rails());
    if (rings.beats_one_ring) t.flat_rings_intra_Bps = rings.aggregate_Bps;
  }
  // Each NIC at the rate its GPUs reach it through PCIe, the node no faster than its fabric link.
  for (size_t n = 0; n < spec.nics.size(); ++n) {
    double best = 0;
    for (int gpu : spec.nics[n].gpus)
      best =
          std::max(best, platform::route_figures(spec, platform::gpu_to_nic_route(spec, gpu)).bandwidth_Bps);
    t.node_nic_Bps += best;
  }
  t.node_nic_Bps = std::min(t.node_nic_Bps, spec.fabric.link.achieved_Bps() * spec.rails());
  if (spec.fabric.topology == platform::FabricTopology::fat_tree && spec.nodes > spec.fabric.switch_radix)
    t.node_nic_Bps /= spec.fabric.oversubscription;
  if (spec.nvswitch && spec.nvswitch->nvls_efficiency)
    t.nvls_port_Bps = spec.nvswitch->port.achieved_Bps() * *spec.nvswitch->nvls_efficiency;
  t.ll_max_busbw_Bps = ll_max_busbw_Bps(spec.gpu.generation, spec.cpu_vendor, spec.nodes);
  return t;
}

bool can_run(const TopologySummary& t, Op op, Algorithm algorithm, Protocol protocol) {
  switch (algorithm) {
    case Algorithm::ring:
      return true;
    case Algorithm::hierarchical:
    case Algorithm::tree:
      return op == Op::allreduce;
    case Algorithm::nvls:
      return op == Op::allreduce && t.nodes == 1 && t.ranks > 1 && t.nvls_port_Bps > 0 &&
             (protocol == Protocol::simple || protocol == Protocol::links || protocol == Protocol::automatic);
    case Algorithm::automatic:
      return true;
  }
  return false;
}

namespace {

// dasim's hierarchical allreduce is no NCCL algorithm, so NCCL's tuner has no formula for it; this
// one follows what communicator.cpp runs, phase after phase: a ring reduce-scatter inside the node
// (g - 1 steps of S/g over the intra-node ring), one ring allreduce across the N nodes per local
// GPU on 1/g of the buffer (2(N - 1) network steps; the g rings share the node's NICs, so together
// they move 2(N - 1)/N x S through its NIC aggregate), and a ring all-gather inside the node (g - 1
// steps). Every step pays at least the protocol's ring hop latency of what it crosses, as the
// simulated steps do. Charging it the flat ring's 2(gN - 1) steps instead (the NCCL formula for a
// ring of all ranks) overstated its latency by orders of magnitude on large clusters and made
// `protocol: auto` pick LL where LL128 or Simple ran faster.
double hierarchical_time_s(const TopologySummary& t, double bytes, Protocol protocol) {
  const double g = t.gpus_per_node, n = t.nodes;
  const auto costs = protocol_costs(Algorithm::hierarchical, protocol);
  const double latency = costs.base_latency_s + 2 * (g - 1) * costs.hop_latency(t.intra_hop) +
                         2 * (n - 1) * costs.hop_latency(HopKind::net);
  double transfer = 0;
  if (g > 1) transfer += 2 * (g - 1) / g * bytes / (t.ring_intra_Bps * costs.bandwidth_factor);
  if (n > 1) transfer += 2 * (n - 1) / n * bytes / (t.node_nic_Bps * costs.bandwidth_factor);
  return latency + transfer;
}

// The protocol's fraction of the algorithm's bus bandwidth on this topology, as NCCL's tuner
// prices it: protocol_costs's, lowered for LL on rings and trees to NCCL's ceiling on LL's bus
// bandwidth (llMaxBws) where that binds.
double ll_capped_factor(const TopologySummary& t, Algorithm algorithm, Protocol protocol) {
  if (protocol == Protocol::links || protocol == Protocol::automatic) return 1.0;
  const double factor = protocol_costs(algorithm, protocol).bandwidth_factor;
  // NCCL holds LL's bus bandwidth under llMaxBw on its own rings and trees (tuning.cc: ring
  // min(llMaxBw, busBw x 0.5), tree min(busBw x 0.92 / 3.8, llMaxBw)); dasim's hierarchical
  // allreduce is no NCCL algorithm and keeps LL's fraction.
  if (protocol != Protocol::ll || (algorithm != Algorithm::ring && algorithm != Algorithm::tree))
    return factor;
  const double busbw = algorithm_busbw_Bps(t, algorithm);
  return busbw > 0 ? std::min(factor, t.ll_max_busbw_Bps / busbw) : factor;
}

// The fraction the simulated flows get. A ring moves every byte through every hop at the pace of
// its slowest one, which sets its bus bandwidth: the ceiling scales all its hops. A tree's chain
// inside the node carries all the data hop after hop, so scaling its NVLink hops to the network's
// ceiling would slow it far below what LL reaches there; its flows keep LL's own fraction (the
// tuner still prices the ceiling).
double simulated_bandwidth_factor(const TopologySummary& t, Algorithm algorithm, Protocol protocol) {
  if (algorithm == Algorithm::tree) return protocol_costs(algorithm, protocol).bandwidth_factor;
  return ll_capped_factor(t, algorithm, protocol);
}

}  // namespace

double predicted_time_s(const TopologySummary& t, Op op, double bytes, Algorithm algorithm,
                        Protocol protocol) {
  if (algorithm == Algorithm::hierarchical && op == Op::allreduce)
    return hierarchical_time_s(t, bytes, protocol);
  const double factor = ll_capped_factor(t, algorithm, protocol);
  const double latency = protocol == Protocol::links ? 0.0 : algorithm_latency_s(t, op, algorithm, protocol);
  return latency +
         algorithm_time_factor(t, op, algorithm) * bytes / (algorithm_busbw_Bps(t, algorithm) * factor);
}

Choice choose(const TopologySummary& t, const CollectiveOptions& scenario_options, Op op, double bytes) {
  // A scenario's tree, hierarchical or nvls setting is for its allreduces: the other operations (top-k's
  // all-gather of the averaged pairs) run on rings, the only algorithm the model has for them.
  CollectiveOptions options = scenario_options;
  if (op != Op::allreduce && options.algorithm != Algorithm::automatic) options.algorithm = Algorithm::ring;
  if (options.algorithm != Algorithm::automatic && !can_run(t, op, options.algorithm, Protocol::simple))
    throw InputError(
        fmt::format("algorithm {} cannot run this {} here (tree: allreduce only; nvls: allreduce on "
                    "one node of an NVSwitch with NVLS)",
                    to_string(options.algorithm), to_string(op)));
  std::vector<Algorithm> algorithms{options.algorithm};
  if (options.algorithm == Algorithm::automatic) {
    algorithms = {Algorithm::ring};
    if (t.nodes >= 2 && op == Op::allreduce) algorithms.push_back(Algorithm::tree);
    if (can_run(t, op, Algorithm::nvls, Protocol::simple)) algorithms.push_back(Algorithm::nvls);
  }
  std::vector<Protocol> protocols{options.protocol};
  if (options.protocol == Protocol::automatic) protocols = {Protocol::ll, Protocol::ll128, Protocol::simple};
  Choice best;
  double best_s = std::numeric_limits<double>::infinity();
  for (Algorithm a : algorithms)
    for (Protocol p : protocols) {
      if (!can_run(t, op, a, p)) continue;
      const double s = predicted_time_s(t, op, bytes, a, p);
      if (s < best_s) {  // strict: ties keep the earlier (ring before tree before nvls, LL first)
        best_s = s;
        best = {a, p};
      }
    }
  if (best_s == std::numeric_limits<double>::infinity())
    throw InputError(fmt::format("protocol {} cannot run algorithm {} (nvls runs Simple only)",
                                 to_string(options.protocol), to_string(options.algorithm)));
  if (best.protocol != Protocol::links)
    best.bandwidth_factor = simulated_bandwidth_factor(t, best.algorithm, best.protocol);
  return best;
}

std::string describe(const Choice& choice) {
  return fmt::format("{}/{}", to_string(choice.algorithm), to_string(choice.protocol));
}

}  // namespace dasim::collectives
