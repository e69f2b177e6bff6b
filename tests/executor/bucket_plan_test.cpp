// Gradient buckets: layers grouped in backward order until a bucket holds bucket_bytes, each bucket
// one contiguous slice of the flat gradient buffer.
#include "bucket_plan.hpp"

#include <gtest/gtest.h>

using namespace dasim::executor;

TEST(BucketPlan, GroupsLayersInBackwardOrder) {
  // Layers of 100, 300, 50, 200 floats (400, 1200, 200, 800 bytes); bucket 1000 bytes.
  const auto b = plan_buckets({100, 300, 50, 200}, 1000);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].first_layer, 2);  // layers 3 + 2: 800 + 200 bytes reach 1000
  EXPECT_EQ(b[0].last_layer, 3);
  EXPECT_EQ(b[0].offset, 400);
  EXPECT_EQ(b[0].count, 250);
  EXPECT_EQ(b[1].first_layer, 1);  // layer 1 alone holds 1200 bytes
  EXPECT_EQ(b[1].last_layer, 1);
  EXPECT_EQ(b[1].offset, 100);
  EXPECT_EQ(b[1].count, 300);
  EXPECT_EQ(b[2].first_layer, 0);  // the remainder
  EXPECT_EQ(b[2].offset, 0);
  EXPECT_EQ(b[2].count, 100);
}

TEST(BucketPlan, TinyBucketsAreOneLayerEach) {
  const auto b = plan_buckets({10, 20, 30}, 1);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].first_layer, 2);
  EXPECT_EQ(b[0].offset, 30);
  EXPECT_EQ(b[2].first_layer, 0);
}

TEST(BucketPlan, HugeBucketIsWholeModel) {
  const auto b = plan_buckets({10, 20, 30}, 1e9);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].offset, 0);
  EXPECT_EQ(b[0].count, 60);
}
