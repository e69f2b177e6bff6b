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

// "I/N" with 0 <= I < N; InputError `--shard: expected ...` otherwise.
ShardSpec parse_shard(const std::string& text);

// Configuration indices (in expand() order) of each of `shards` shards, each list ascending.
std::vector<std::vector<size_t>> split_into_shards(const Scenario& scenario,
                                                   const std::vector<Configuration>& configurations,
                                                   int shards);

}  // namespace dasim::scenario
