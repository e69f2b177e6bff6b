// The symmetric fold (issue 19): a training run whose ranks are all alike is simulated on two of
// its nodes, which stand for all of them.
//
// Why it is exact. On one node type with a fabric whose every node pair is reached alike (a star,
// or a fat tree without oversubscription), with no stragglers, jitter, islands or fsdp, and with every
// collective on coarse rings (NCCL's rings, or the hierarchical algorithm's rings inside nodes and
// across them; trees below), each rank computes the same steps and each node's links carry the same
// flows: per ring one flow into the node and one out over its NIC, and the same flows between its
// GPUs. Two nodes joined in a ring put exactly that on each of their links, so their ranks take
// exactly the times every rank of the whole run takes. What depends on the node count is sized for
// all nodes: the collectives' shares (bytes / P), ring steps (P - 1) and step latencies (the ring's
// hops of each kind), NCCL's algorithm and protocol choice, and the averaged payload (top-k
// all-gathers P workers' pairs). Simulating 2 nodes instead of 2,048 makes the cost independent of
// the GPU count. NCCL's trees fold too, on a star or under one fat-tree leaf: the two nodes
// exchange as many edges as the trees' busiest node has, and the pipeline's depth is the
// represented trees' (collectives/folded_trees.hpp).
//
// Where it does not hold, the run is simulated whole: the fold's why_not says which condition
// failed (the platform's and the collectives' conditions: collectives/symmetry.hpp). A route's
// latency differs between node pairs of a fat tree (a leaf crossing has more switch hops): a folded
// ring adds the whole ring's crossings to its latency (collectives/communicator.cpp), and trees
// across leaves are not folded (symmetry.cpp says why). tests/symmetry/preset_fold_test.cpp
// compares folded and whole runs on every preset.
#pragma once

#include "collectives/symmetry.hpp"
#include "engine/training_simulation.hpp"
#include "workers/step_plan.hpp"

#include <string>

namespace dasim::engine {

// The nodes a fold simulates.
using collectives::kFoldedNodes;

struct FoldDecision {
  int simulated_nodes = 1;  // the platform's nodes when not folded
  std::string why_not;      // empty when folded; else the first condition that does not hold
  bool folded() const { return why_not.empty(); }
};

// `plan`: the run's step plan with its averaging planned for all ranks (its collectives' sizes
// decide NCCL's choice under algorithm auto).
FoldDecision decide_fold(const TrainingConfig& config, const workers::StepPlan& plan);

// The same, planning the step itself (for estimates before a run).
FoldDecision decide_fold(const TrainingConfig& config);

// The step plan a run of `config` uses, its averaging planned for `ranks` ranks.
workers::StepPlan plan_training_step(const TrainingConfig& config, int ranks);

}  // namespace dasim::engine
