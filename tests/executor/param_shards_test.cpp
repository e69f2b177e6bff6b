// FSDP's chunks of the flat parameter buffer, against hand-computed counts: chunk = ceil(n / g),
// the last ranks holding the remainder or nothing, a rank's chunks laid out in parameter order.
#include "param_shards.hpp"

#include <gtest/gtest.h>

using dasim::executor::ParamShards;
using dasim::workload::Bucket;

namespace {

Bucket unit(int64_t param_offset, int64_t params) {
  Bucket b;
  b.param_offset = param_offset;
  b.params = params;
  return b;
}

// Two units in ready order (the later parameters first): [10, 17) and [0, 10).
const std::vector<Bucket> kUnits{unit(10, 7), unit(0, 10)};

}  // namespace

TEST(ParamShards, ChunksOfCeilSizeThenTheRemainder) {
  const ParamShards rank2(kUnits, 4, 2);
  // 10 params on 4 ranks: chunks of 3 -> 3, 3, 3, 1; 7 params: chunks of 2 -> 2, 2, 2, 1.
  EXPECT_EQ(rank2.counts(1), (std::vector<int>{3, 3, 3, 1}));
  EXPECT_EQ(rank2.displs(1), (std::vector<int>{0, 3, 6, 9}));
  EXPECT_EQ(rank2.counts(0), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(rank2.displs(0), (std::vector<int>{0, 2, 4, 6}));
  // Rank 2 holds params 6..8 then 14..15, in that order.
  EXPECT_EQ(rank2.shard_size(), 5);
  EXPECT_EQ(rank2.shard_offset(1), 0);
  EXPECT_EQ(rank2.shard_offset(0), 3);
}

TEST(ParamShards, MoreRanksThanParametersLeaveSomeEmpty) {
  const ParamShards rank3(std::vector<Bucket>{unit(0, 2)}, 4, 3);
  EXPECT_EQ(rank3.counts(0), (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(rank3.shard_size(), 0);
  EXPECT_EQ(rank3.shard_range(0, 2).count, 0);
}

TEST(ParamShards, ParameterRangeIsOneRangeOfTheShard) {
  const ParamShards rank2(kUnits, 4, 2);
  // [7, 15) meets rank 2's params 7, 8 (shard 1, 2) and 14 (shard 3).
  const auto r = rank2.shard_range(7, 8);
  EXPECT_EQ(r.offset, 1);
  EXPECT_EQ(r.count, 3);
  EXPECT_EQ(rank2.shard_range(0, 17).count, 5);
  EXPECT_EQ(rank2.shard_range(9, 5).count, 0);  // params 9..13: none is rank 2's
}

TEST(ParamShards, CopiesRoundTripThroughTheShard) {
  const ParamShards rank2(kUnits, 4, 2);
  std::vector<float> full(17);
  for (size_t i = 0; i < full.size(); ++i) full[i] = float(i);
  std::vector<float> shard;
  rank2.copy_to_shard(full, shard);
  EXPECT_EQ(shard, (std::vector<float>{6, 7, 8, 14, 15}));
  std::vector<float> back(17, -1.0f);
  rank2.copy_from_shard(shard, back);
  EXPECT_EQ(back[6], 6.0f);
  EXPECT_EQ(back[15], 15.0f);
  EXPECT_EQ(back[9], -1.0f);  // not rank 2's
}
