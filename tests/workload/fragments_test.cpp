// Streaming DiLoCo's fragments: contiguous layer groups of about equal parameter counts, the
// boundaries worked out by hand.
#include "workload/fragments.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using dasim::workload::plan_fragments;

TEST(Fragments, EqualLayersSplitEvenly) {
  // 8 layers of 10 params into 4 fragments: layers {0,1}, {2,3}, {4,5}, {6,7}.
  const auto f = plan_fragments({10, 10, 10, 10, 10, 10, 10, 10}, 4);
  ASSERT_EQ(f.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f[i].first_layer, 2 * i);
    EXPECT_EQ(f[i].last_layer, 2 * i + 1);
    EXPECT_EQ(f[i].params, 20);
    EXPECT_EQ(f[i].param_offset, int64_t(20 * i));
  }
}

TEST(Fragments, AFragmentClosesWhereItsShareIsReached) {
  // Total 100, 2 fragments: the share 50 is reached after layer 1 (30 + 40 = 70), so {0,1}, {2,3}.
  const auto f = plan_fragments({30, 40, 20, 10}, 2);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].params, 70);
  EXPECT_EQ(f[1].first_layer, 2u);
  EXPECT_EQ(f[1].param_offset, 70);
  EXPECT_EQ(f[1].params, 30);
}

TEST(Fragments, EveryFragmentKeepsALayerWithParameters) {
  // One huge first layer would reach every share at once: the later fragments still get a layer
  // each; layers without parameters (a ReLU) go with the fragment they follow.
  const auto f = plan_fragments({1000, 0, 1, 1}, 3);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].params, 1000);
  EXPECT_EQ(f[0].last_layer, 0u);
  EXPECT_EQ(f[1].first_layer, 1u);
  EXPECT_EQ(f[1].last_layer, 2u);
  EXPECT_EQ(f[1].params, 1);
  EXPECT_EQ(f[2].params, 1);
  EXPECT_EQ(f[2].last_layer, 3u);
}

TEST(Fragments, OneFragmentIsTheWholeModel) {
  const auto f = plan_fragments({0, 5, 7}, 1);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].params, 12);
  EXPECT_EQ(f[0].first_layer, 0u);
  EXPECT_EQ(f[0].last_layer, 2u);
}

TEST(Fragments, MoreFragmentsThanLayersWithParametersAreRefused) {
  EXPECT_THROW(plan_fragments({5, 0, 5}, 3), std::invalid_argument);
  EXPECT_THROW(plan_fragments({5}, 0), std::invalid_argument);
}
