// The bucket planner over per-layer parameter counts, as the executor's models use it: layers
// grouped in backward order until a bucket holds the cap, each bucket one contiguous slice of the
// flat gradient buffer (offsets and counts in floats, computed by hand).
#include "workload/buckets.hpp"

#include <gtest/gtest.h>

using namespace dasim::workload;

namespace {
std::vector<Bucket> plan_floats(std::vector<int64_t> params, double cap_bytes) {
  return plan_buckets(params, sizeof(float), cap_bytes);
}
}  // namespace

TEST(FlatBufferBuckets, GroupsLayersInBackwardOrder) {
  // Layers of 100, 300, 50, 200 floats (400, 1200, 200, 800 bytes); bucket 1000 bytes.
  const auto b = plan_floats({100, 300, 50, 200}, 1000);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].first_layer, 2u);  // layers 3 + 2: 800 + 200 bytes reach 1000
  EXPECT_EQ(b[0].last_layer, 3u);
  EXPECT_EQ(b[0].param_offset, 400);
  EXPECT_EQ(b[0].params, 250);
  EXPECT_EQ(b[1].first_layer, 1u);  // layer 1 alone holds 1200 bytes
  EXPECT_EQ(b[1].last_layer, 1u);
  EXPECT_EQ(b[1].param_offset, 100);
  EXPECT_EQ(b[1].params, 300);
  EXPECT_EQ(b[2].first_layer, 0u);  // the remainder
  EXPECT_EQ(b[2].param_offset, 0);
  EXPECT_EQ(b[2].params, 100);
}

TEST(FlatBufferBuckets, TinyBucketsAreOneLayerEach) {
  const auto b = plan_floats({10, 20, 30}, 1);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].first_layer, 2u);
  EXPECT_EQ(b[0].param_offset, 30);
  EXPECT_EQ(b[2].first_layer, 0u);
}

TEST(FlatBufferBuckets, HugeBucketIsWholeModel) {
  const auto b = plan_floats({10, 20, 30}, 1e9);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].param_offset, 0);
  EXPECT_EQ(b[0].params, 60);
}
