// DDP bucket planning: a small hand-computed case and ResNet-50 at DDP's default 25 MiB cap.
#include "workload/buckets.hpp"
#include "workload/builtin_models.hpp"

#include "common/errors.hpp"

#include <gtest/gtest.h>

using namespace dasim::workload;

namespace {

Workload tiny(std::vector<int64_t> params) {
  Workload w;
  w.name = "tiny";
  for (size_t i = 0; i < params.size(); ++i) {
    Layer l;
    l.name = "l" + std::to_string(i);
    l.params = params[i];
    w.layers.push_back(l);
  }
  return w;
}

}  // namespace

TEST(Buckets, HandComputedSmallCase) {
  // fp32, params {100, 0, 50, 200}: reverse order is l3 (800 B), l2 (200 B), l0 (400 B).
  Workload w = tiny({100, 0, 50, 200});
  // Cap 600 B: l3 alone reaches it; l2 + l0 = 600 B reaches it at l0.
  auto b = plan_buckets(w, 600);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(b[0].bytes, 800);
  EXPECT_EQ(b[0].ready_after_layer, 3u);
  EXPECT_DOUBLE_EQ(b[1].bytes, 600);
  EXPECT_EQ(b[1].params, 150);
  EXPECT_EQ(b[1].ready_after_layer, 0u);
  EXPECT_EQ(b[1].last_layer, 2u);
  // Cap 1000 B: l3 + l2 = 1000 B closes at l2; l0 is left alone in the last bucket.
  b = plan_buckets(w, 1000);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(b[0].bytes, 1000);
  EXPECT_EQ(b[0].ready_after_layer, 2u);
  EXPECT_DOUBLE_EQ(b[1].bytes, 400);
  EXPECT_EQ(b[1].ready_after_layer, 0u);
  // fp16 halves the bytes: everything (700 B) fits under a 1000 B cap.
  w.precision = Precision::fp16;
  b = plan_buckets(w, 1000);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(b[0].bytes, 700);
  // A huge cap: one bucket ready after the first layer.
  EXPECT_EQ(plan_buckets(w, 1e12).size(), 1u);
  EXPECT_THROW(plan_buckets(w, 0), dasim::InputError);
}

TEST(Buckets, FirstBucketCap) {
  // DDP's 1 MiB first bucket, scaled down: first cap 100 B closes after l3 (800 B).
  Workload w = tiny({100, 0, 50, 200});
  auto b = plan_buckets(w, 10000, 100);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(b[0].bytes, 800);
  EXPECT_DOUBLE_EQ(b[1].bytes, 600);
}

TEST(Buckets, ResNet50AtDdpDefault) {
  // Hand derivation (docs/workloads.md), fp32, cap 25 MiB = 6,553,600 parameters, reverse order:
  //  1: fc 2,049,000 + layer4.2 4,462,592 + layer4.1.bn3 4,096 + layer4.1.conv3 1,048,576 = 7,564,264
  //  2: layer4.1 rest 3,409,920 + layer4.0 ds.1, ds.0, bn3, conv3 3,153,920 = 6,563,840
  //  3: layer4.0 rest 2,885,632 + layer3.5..3 3,351,552 + layer3.2 bn3..conv2 854,528 = 7,091,712
  //  4: everything else (layer3.2 bn1+conv1 .. stem conv1) = 4,337,216
  Workload w = resnet50(Precision::fp32);
  auto b = plan_buckets(w, kDdpDefaultBucketCapBytes);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].params, 7'564'264);
  EXPECT_EQ(b[1].params, 6'563'840);
  EXPECT_EQ(b[2].params, 7'091'712);
  EXPECT_EQ(b[3].params, 4'337'216);
  EXPECT_EQ(w.layers[b[0].ready_after_layer].name, "layer4.1.conv3");
  EXPECT_EQ(w.layers[b[1].ready_after_layer].name, "layer4.0.conv3");
  EXPECT_EQ(w.layers[b[2].ready_after_layer].name, "layer3.2.conv2");
  EXPECT_EQ(w.layers[b[3].ready_after_layer].name, "conv1");
  EXPECT_DOUBLE_EQ(b[0].bytes, 7'564'264.0 * 4);
}
