// The shape keys are a contract with the kernel microbenchmarks: pin their exact text.
#include "workload/shape_key.hpp"

#include <gtest/gtest.h>

using namespace dasim::workload;

TEST(ShapeKey, ConvAndGemm) {
  ConvShape c{64, 128, 56, 56, 3, 3, 2, 1, 1};
  EXPECT_EQ(conv_shape_key(c), "c64_k128_h56_w56_r3_s3_u2_p1_g1");
  GemmShape g{128, 4096, 1024};
  EXPECT_EQ(gemm_shape_key(g), "m128_n4096_k1024");
}
