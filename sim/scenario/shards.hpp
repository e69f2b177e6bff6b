// Splitting a scenario's configurations over N independent runs (`dasim run --shard I/N`, e.g. a
// Slurm array), to be joined by `dasim merge`. Every shard computes the same split from the
// scenario alone, so no shard needs to know what the others run: configurations largest first
// (by their estimated wall time), each to the shard with the least estimated work so far.
#pragma once

#include "scenario/scenario.hpp"

#include <string>
#include <vector>

namespace dasim::scenario {

struct ShardSpec {
  int index = 0;  // 0-based, as SLURM_ARRAY_TASK_ID with --array=0-(N-1)
  int count = 1;
};

// Each configuration's estimated wall time (estimated_wall_s) and the configurations largest
// first, ties in configuration order: the same order on every machine. The shards are dealt in
// it, and dasim-mpi-sweep hands configurations out in it.
struct WorkOrder {
  std::vector<double> cost_s;         // per configuration, in expand() order
  std::vector<size_t> largest_first;  // configuration indices
};
WorkOrder work_order(const Scenario& scenario, const std::vector<Configuration>& configurations);

// "I/N" with 0 <= I < N; InputError `--shard: expected ...` otherwise.
ShardSpec parse_shard(const std::string& text);

// Configuration indices (in expand() order) of each of `shards` shards, each list ascending.
std::vector<std::vector<size_t>> split_into_shards(const Scenario& scenario,
                                                   const std::vector<Configuration>& configurations,
                                                   int shards);

}  // namespace dasim::scenario
