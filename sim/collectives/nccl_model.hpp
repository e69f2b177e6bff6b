// NCCL's own cost model, as dasim uses it to stand in for NCCL's protocols and tuner (constants of
// src/graph/tuning.cc, NCCL v2.30.7; docs/file-formats.md lists them):
//   - each (algorithm, protocol) has a base latency, paid once per collective, and a latency per
//     hop that depends on what the hop crosses (NVLink, PCIe or the network); a simulated step
//     takes at least that long, even where the links' own latency is shorter;
//   - each protocol reaches a fraction of the transports' achieved rate (Simple all of it, LL128
//     0.92, LL half; NCCL's tree has its own factors);
//   - the tuner predicts time = latency + bytes / algorithm bandwidth for every valid pair and runs
//     the cheapest, which is what `algorithm: auto` and `protocol: auto` do for each collective.
// Pure: no SimGrid; the topology it needs is summarised from the platform spec.
#pragma once

#include "collectives/collective_types.hpp"
#include "platform/platform_spec.hpp"

#include <limits>
#include <string>

namespace dasim::collectives {

enum class HopKind { nvlink, pci, net };

// What a resolved (algorithm, protocol) costs a simulated collective.
struct ProtocolCosts {
  double bandwidth_factor = 1;          // of the links' achieved rate: bytes on the wire = bytes / factor
  double base_latency_s = 0;            // once per collective
  double hop_latency_s[3] = {0, 0, 0};  // least time of one step, by HopKind

  double hop_latency(HopKind kind) const { return hop_latency_s[static_cast<int>(kind)]; }
};
// Protocol::links: factor 1 and no latencies (the links alone).
ProtocolCosts protocol_costs(Algorithm algorithm, Protocol protocol);

// The figures of a platform that NCCL's tuner looks at.
struct TopologySummary {
  int ranks = 1, nodes = 1, gpus_per_node = 1;
  HopKind intra_hop = HopKind::nvlink;  // how GPUs of one node reach each other
  // Slowest hop of the best intra-node cycle (achieved): what one ring, a tree's chain and the
  // hierarchical allreduce's intra-node phases run at.
  double ring_intra_Bps = 0;
  // The flat rings' intra-node bus bandwidth where rings over different links add to it (a
  // DGX-1's NVLink mesh, intra_node_rings: inside one node as many rings as help, across nodes
  // one per NIC); 0 where they do not (ring_intra_Bps applies).
  double flat_rings_intra_Bps = 0;
  double node_nic_Bps = 0;   // a node's NIC aggregate as its GPUs reach it (achieved)
  double nvls_port_Bps = 0;  // NVSwitch port x NVLS efficiency; 0 without NVLS
  // NCCL's ceiling on LL's bus bandwidth (llMaxBws): infinite where dasim does not know the GPU.
  double ll_max_busbw_Bps = std::numeric_limits<double>::infinity();
};
TopologySummary summarize_topology(const platform::PlatformSpec& spec);

// Whether the algorithm can run the collective on this topology (tree: allreduce; nvls: allreduce
// on one node of an NVSwitch with NVLS, Simple only), and the protocol with it.
bool can_run(const TopologySummary& t, Op op, Algorithm algorithm, Protocol protocol);

// NCCL's estimate of the collective's time under (algorithm, protocol), seconds.
double predicted_time_s(const TopologySummary& t, Op op, double bytes, Algorithm algorithm,
                        Protocol protocol);

struct Choice {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::links;
  // The fraction of the links' rate the protocol's flows get here: its own fraction, below NCCL's
  // LL ceiling where that binds (0: the protocol's own, protocol_costs).
  double bandwidth_factor = 0;
};
// The options with `automatic` resolved for one collective: the valid pair of least predicted
// time (fixed parts kept). A fixed algorithm applies to allreduces; the other operations run on
// rings. Throws InputError when a fixed algorithm cannot run the allreduce here (nvls off an
// NVSwitch node).
Choice choose(const TopologySummary& t, const CollectiveOptions& options, Op op, double bytes);
std::string describe(const Choice& choice);  // "ring/simple"

}  // namespace dasim::collectives
