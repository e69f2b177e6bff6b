// Rounding of outer gradients to `bits`, against hand computations: one absmax scale over the
// fragment, 2^(bits-1) - 1 levels each side, halves away from zero; the rounding error of top-k's
// values goes back to the residual.
#include "quantize.hpp"

#include <gtest/gtest.h>

using namespace dasim::executor;

TEST(Quantize, RoundsToTheLevelsOfOneAbsmaxScaleOnTheFragmentOnly) {
  std::vector<float> x{9, 1, -0.5f, 0.26f, 0, 9};
  quantize_in_place(x, 1, 4, 4);  // 7 levels of 1/7: 0.26 x 7 = 1.82 -> 2, -0.5 x 7 = -3.5 -> -4
  EXPECT_FLOAT_EQ(x[0], 9);
  EXPECT_FLOAT_EQ(x[1], 1);
  EXPECT_FLOAT_EQ(x[2], -4.0f / 7);
  EXPECT_FLOAT_EQ(x[3], 2.0f / 7);
  EXPECT_FLOAT_EQ(x[4], 0);
  EXPECT_FLOAT_EQ(x[5], 9);
  std::vector<float> y{0.26f, -1};
  quantize_in_place(y, 0, 2, 8);  // 127 levels: 0.26 x 127 = 33.02 -> 33
  EXPECT_FLOAT_EQ(y[0], 33.0f / 127);
  EXPECT_FLOAT_EQ(y[1], -1);
}

TEST(Quantize, ThirtyTwoBitsAndAllZerosAreLeftAlone) {
  std::vector<float> x{0.1f, 0.2f};
  quantize_in_place(x, 0, 2, 32);
  EXPECT_EQ(x, (std::vector<float>{0.1f, 0.2f}));
  std::vector<float> zeros(3, 0.0f);
  quantize_in_place(zeros, 0, 3, 4);
  EXPECT_EQ(zeros, std::vector<float>(3, 0.0f));
}

TEST(Quantize, TopKValuesAreRoundedAndTheErrorStaysInTheResidual) {
  std::vector<SparseEntry> sent{{0, 1.0f}, {3, 0.26f}};
  std::vector<float> residual(5, 0.0f);
  quantize_entries(sent, 4, residual, 1);
  EXPECT_FLOAT_EQ(sent[0].value, 1);
  EXPECT_FLOAT_EQ(sent[1].value, 2.0f / 7);
  EXPECT_FLOAT_EQ(residual[4], 0.26f - 2.0f / 7);  // index 3 of the fragment at offset 1
  EXPECT_FLOAT_EQ(residual[1], 0);
}
