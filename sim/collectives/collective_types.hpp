// Vocabulary of the collective layer: operations, algorithms, the representation (coarse flows or
// fine-grained messages) and the options a scenario or `dasim collective` passes in.
#pragma once

#include "common/enum_names.hpp"
#include "common/units.hpp"

#include <string>

namespace dasim::collectives {

enum class Op { allreduce, reduce_scatter, all_gather, broadcast };
inline constexpr EnumNames<Op, 4> kOpNames{{{
    {Op::allreduce, "allreduce"},
    {Op::reduce_scatter, "reduce_scatter"},
    {Op::all_gather, "all_gather"},
    {Op::broadcast, "broadcast"},
}}};

// ring: NCCL's rings, one per channel; tree: NCCL's trees (a chain inside each node, a double
// binary tree over the nodes); nvls: NVLink SHARP on an NVSwitch that has it (one node); hierarchical:
// reduce-scatter in the node, a ring per rail across nodes, all-gather (not an NCCL algorithm);
// automatic ("auto"): the cheapest of ring, tree and nvls for each collective, as NCCL's tuner
// picks (nccl_model.hpp).
enum class Algorithm { ring, tree, hierarchical, nvls, automatic };
inline constexpr EnumNames<Algorithm, 5> kAlgorithmNames{{{
    {Algorithm::ring, "ring"},
    {Algorithm::tree, "tree"},
    {Algorithm::hierarchical, "hierarchical"},
    {Algorithm::nvls, "nvls"},
    {Algorithm::automatic, "auto"},
}}};

// NCCL's protocols: simple (bulk copies with fences: the transports' full achieved rate, the
// highest per-hop latency), ll128 (128-byte lines with a flag: 0.92 of it), ll (8 data bytes per
// 16-byte line: half of it, the lowest latency); automatic ("auto"): the cheapest for the size.
// links: no protocol model, the links' own latency and achieved rate (MPI ranks progressed by the
// host, and the closed-form checks of the collective algorithms).
enum class Protocol { simple, ll128, ll, automatic, links };
inline constexpr EnumNames<Protocol, 5> kProtocolNames{{{
    {Protocol::simple, "simple"},
    {Protocol::ll128, "ll128"},
    {Protocol::ll, "ll"},
    {Protocol::automatic, "auto"},
    {Protocol::links, "links"},
}}};

// coarse: one flow per rank per ring phase (2P flows per allreduce) with the ring's remaining
//         per-step latency added as a delay: same alpha-beta timing, O(P) events.
// fine:   every ring step (and every pipelined chunk) is its own message: O(P^2) events.
enum class Granularity { coarse, fine };

// The largest collective the simulator takes: the largest size of any input (units.hpp says why).
inline constexpr double kMaxCollectiveBytes = units::kMaxBytes;
inline constexpr EnumNames<Granularity, 2> kGranularityNames{{{
    {Granularity::coarse, "coarse"},
    {Granularity::fine, "fine"},
}}};

// async:  a collective advances on its own while the rank computes (NCCL kernels and copy engines
//         on a GPU).
// host:   it advances only while the rank waits for it (MPI on CPU ranks, whose shared-memory
//         copies and progress run on the rank's own core inside MPI calls, when the rank makes no
//         MPI call between starting and waiting).
// polled: it starts when issued and advances as the rank polls it between layers (MPI_Test), so
//         it runs while the rank computes, but its active time is paid on the rank's core: inside
//         the wait when the rank waits for it, in the polls otherwise (charged at the wait).
// polled_rounds: a ring allreduce that advances only inside the rank's calls (its start, a poll
//         after every layer, the wait), round by round, each rank copying the chunk its left
//         neighbour posted (PolledRing): a rank's long layers hold back its neighbours' rounds.
enum class Progress { async, host, polled, polled_rounds };
inline constexpr EnumNames<Progress, 5> kProgressNames{{{
    {Progress::async, "async"},
    {Progress::host, "host"},
    {Progress::polled, "polled"},
    {Progress::polled_rounds, "polled_rounds"},
    {Progress::polled_rounds, "polled-rounds", true},  // the first spelling, still accepted
}}};

// The defaults of this struct are the bare model (one ring, the links' own figures) that the
// closed-form tests check; scenario files and `dasim collective` default to algorithm and
// protocol "auto", as NCCL does (docs/file-formats.md).
struct CollectiveOptions {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::links;
  Granularity granularity = Granularity::coarse;
  int chunks_per_step = 1;            // fine ring: pipelined pieces per ring step
  double tree_chunk_bytes = 1 << 20;  // tree: pipeline chunk (NCCL-like)
  int tree_max_chunks = 256;          // tree: cap on pipeline depth (event count)
  // ring: rings run side by side, each on 1/channels of the buffer and leaving every node through
  // a different NIC, as NCCL's channels do. 0 = one per NIC of a node; 1 = a single flat ring.
  int ring_channels = 0;
  // tree: trees run side by side, each pair (NCCL's double tree) on 1/channels of the buffer with
  // its chains rotated so that every NIC of a node carries some tree edges. 0 = one per NIC.
  int tree_channels = 0;
  Progress progress = Progress::async;
  // Simulate a symmetric run on two of its nodes, which stand for all (engine/symmetric_fold.hpp);
  // false: always every node.
  bool fold = true;
  // Fold NCCL's trees across fat-tree leaves too. Not exact: SimGrid's CM02 gives a flow a share
  // of a link in inverse proportion to its route latency (TCP's RTT unfairness), so in the whole
  // run a node's tree edges to other leaves get less of its NIC than its edges inside the leaf;
  // the two built nodes under one leaf share it equally. The folded allreduce is never slower and
  // was up to 2.6% faster (dgx-a100-hdr x 21 at 1 GiB), exact on the H100 presets
  // (docs/performance.md, "Trees"); RDMA shares no link by route latency, so the fold is no
  // further from a real fabric than the whole run.
  bool fold_trees_across_leaves = false;
  bool reduction_compute = false;   // add reduction time (3 x bytes / memory bandwidth)
  double memory_bandwidth_Bps = 0;  // used when reduction_compute is on
};

Op parse_op(const std::string& text);                // throws InputError on an unknown name
Algorithm parse_algorithm(const std::string& text);  // throws InputError on an unknown name
std::string to_string(Op op);
std::string to_string(Algorithm algorithm);
std::string to_string(Protocol protocol);

// nccl-tests' bus bandwidth factor for an op on n ranks: allreduce 2(n-1)/n, reduce-scatter and
// all-gather (n-1)/n, broadcast 1.
double bus_bandwidth_factor(Op op, int ranks);

}  // namespace dasim::collectives
