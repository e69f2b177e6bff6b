// FSDP's chunks of the flat parameter buffer (see param_shards.hpp).
#include "param_shards.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace dasim::executor {

ParamShards::ParamShards(const std::vector<workload::Bucket>& units, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks) throw std::invalid_argument("ParamShards: rank out of range");
  // The shard lays the chunks out in parameter order, whatever order the units come in.
  std::vector<size_t> by_offset(units.size());
  std::iota(by_offset.begin(), by_offset.end(), size_t{0});
  std::sort(by_offset.begin(), by_offset.end(),
            [&](size_t a, size_t b) { return units[a].param_offset < units[b].param_offset; });
  units_.resize(units.size());
  for (size_t u : by_offset) {
    const int64_t params = units[u].params;
    if (params > std::numeric_limits<int>::max())  // MPI counts are ints
      throw std::invalid_argument("ParamShards: a unit of more than 2^31 - 1 parameters");
    const int64_t chunk = (params + ranks - 1) / ranks;
    Unit& unit = units_[u];
    unit.param_offset = units[u].param_offset;
    for (int r = 0; r < ranks; ++r) {
      const int64_t begin = std::min(params, r * chunk), end = std::min(params, (r + 1) * chunk);
      unit.displs.push_back(static_cast<int>(begin));
      unit.counts.push_back(static_cast<int>(end - begin));
    }
    unit.shard_offset = shard_size_;
    const int64_t mine = unit.counts[size_t(rank)];
    pieces_.push_back({unit.param_offset + unit.displs[size_t(rank)], shard_size_, mine});
    shard_size_ += mine;
  }
}

ParamShards::Range ParamShards::shard_range(int64_t param_offset, int64_t params) const {
  // The pieces are disjoint and in parameter order, so those the range meets are consecutive in
  // the shard: the range starts where the first one is met and counts what each one shares.
  Range range;
  bool met = false;
  const int64_t end = param_offset + params;
  for (const auto& piece : pieces_) {
    const int64_t begin = std::max(param_offset, piece.param_offset);
    const int64_t stop = std::min(end, piece.param_offset + piece.count);
    if (begin >= stop) continue;
    if (!met) range.offset = piece.shard_offset + (begin - piece.param_offset);
    met = true;
    range.count += stop - begin;
  }
  return range;
}

void ParamShards::copy_to_shard(const std::vector<float>& full, std::vector<float>& shard) const {
  shard.resize(size_t(shard_size_));
  for (const auto& piece : pieces_)
    std::copy_n(full.begin() + piece.param_offset, piece.count, shard.begin() + piece.shard_offset);
}

void ParamShards::copy_from_shard(const std::vector<float>& shard, std::vector<float>& full) const {
  for (const auto& piece : pieces_)
    std::copy_n(shard.begin() + piece.shard_offset, piece.count, full.begin() + piece.param_offset);
}

}  // namespace dasim::executor
