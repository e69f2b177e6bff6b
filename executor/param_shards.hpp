// How fully sharded data parallelism (--data-parallel fsdp) splits the executor's flat parameter
// buffer: each unit (one gradient bucket: a contiguous slice of whole layers) is cut into one
// chunk per rank of the island, PyTorch FSDP's flat-parameter sharding: chunk = ceil(params / g),
// rank r holds [r chunk, min(params, (r + 1) chunk)), so the last ranks may hold less, or nothing.
// A rank keeps its chunks one after the other in parameter order (its "shard"): any contiguous
// parameter range, such as a DiLoCo fragment, is then one contiguous range of the shard too.
// Pure arithmetic, shared by the MPI trainer and the serial reference.
#pragma once

#include "workload/buckets.hpp"

#include <cstdint>
#include <vector>

namespace dasim::executor {

class ParamShards {
 public:
  // `units` in any order (the bucket planner's is ready order); `ranks` >= 1, 0 <= rank < ranks.
  ParamShards(const std::vector<workload::Bucket>& units, int ranks, int rank);

  struct Range {
    int64_t offset = 0, count = 0;
  };
  // Every rank's chunk of `unit`, as MPI_Allgatherv / MPI_Reduce_scatter take them: element counts
  // and offsets from the unit's first parameter.
  const std::vector<int>& counts(int unit) const { return units_[size_t(unit)].counts; }
  const std::vector<int>& displs(int unit) const { return units_[size_t(unit)].displs; }
  // This rank's chunk of `unit`: where it starts in the shard.
  int64_t shard_offset(int unit) const { return units_[size_t(unit)].shard_offset; }
  int64_t shard_size() const { return shard_size_; }

  // The part of the parameter range [param_offset, param_offset + params) this rank holds, as a
  // range of its shard (count 0 when it holds none of it).
  Range shard_range(int64_t param_offset, int64_t params) const;

  // shard <- this rank's elements of the full buffer; full <- shard at this rank's positions.
  void copy_to_shard(const std::vector<float>& full, std::vector<float>& shard) const;
  void copy_from_shard(const std::vector<float>& shard, std::vector<float>& full) const;

 private:
  struct Unit {
    int64_t param_offset = 0;
    std::vector<int> counts, displs;
    int64_t shard_offset = 0;
  };
  struct Piece {  // this rank's chunk of one unit, in parameter order
    int64_t param_offset = 0, shard_offset = 0, count = 0;
  };
  std::vector<Unit> units_;
  std::vector<Piece> pieces_;
  int64_t shard_size_ = 0;
};

}  // namespace dasim::executor
