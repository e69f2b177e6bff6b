// ResNet-101, ResNet-152 and Inception v3 against published figures: torchvision's parameter counts
// (sum(p.numel() for p in model.parameters())) and its model cards' "GFLOPS" column, which counts
// multiply-adds of one sample (docs.pytorch.org/vision/stable/models.html: resnet101 7.80,
// resnet152 11.51, inception_v3 5.71).
#include "support/workload_layers.hpp"
#include "workload/builtin_models.hpp"

#include <gtest/gtest.h>

using namespace dasim::workload;

using dasim::testing::layer_named;
using dasim::testing::layers_of_kind;

TEST(ResNet101, ParamsAndMacsMatchTorchvision) {
  Workload w = resnet101(Precision::fp32);
  EXPECT_EQ(w.name, "resnet101");
  EXPECT_EQ(w.total_params(), 44'549'160);
  EXPECT_NEAR(w.conv_linear_macs() / 7.80e9, 1.0, 0.005);  // the card rounds to 0.01 G
  // 33 bottlenecks of 3 convs, the stem and 4 downsamples.
  EXPECT_EQ(layers_of_kind(w, LayerKind::conv), 1 + 33 * 3 + 4);
  // Stage 3 has 23 blocks: the last is layer3.22, a 14 x 14 x 256 3x3 conv.
  EXPECT_DOUBLE_EQ(layer_named(w, "layer3.22.conv2").forward_flops, 2.0 * 14 * 14 * 256 * 256 * 9);
}

TEST(ResNet152, ParamsAndMacsMatchTorchvision) {
  Workload w = resnet152(Precision::fp32);
  EXPECT_EQ(w.total_params(), 60'192'808);
  EXPECT_NEAR(w.conv_linear_macs() / 11.51e9, 1.0, 0.005);
  EXPECT_EQ(layers_of_kind(w, LayerKind::conv), 1 + 50 * 3 + 4);
  EXPECT_EQ(layer_named(w, "layer2.7.conv2").conv->in_h, 28);  // stage 2 has 8 blocks
}

TEST(InceptionV3, ParamsMatchTorchvisionWithoutTheAuxiliaryHead) {
  // torchvision.models.inception_v3() (aux_logits=True): 27,161,264. Its AuxLogits head, by hand:
  // conv0 768 -> 128 1x1 (98,304) + BN (256); conv1 128 -> 768 5x5 (2,457,600) + BN (1,536);
  // fc 768 -> 1000 (769,000): 3,326,696. Without it: 23,834,568.
  Workload w = inception_v3(Precision::fp32);
  EXPECT_EQ(w.name, "inception-v3");
  EXPECT_EQ(w.total_params(), 27'161'264 - 3'326'696);
  EXPECT_NEAR(w.conv_linear_macs() / 5.71e9, 1.0, 0.005);
  // BasicConv2d modules: stem 5, Mixed_5b-d 7 each, Mixed_6a 4, Mixed_6b-e 10 each, Mixed_7a 6,
  // Mixed_7b-c 9 each.
  EXPECT_EQ(layers_of_kind(w, LayerKind::conv), 5 + 3 * 7 + 4 + 4 * 10 + 6 + 2 * 9);
  EXPECT_EQ(layers_of_kind(w, LayerKind::concat), 11);
  EXPECT_EQ(w.sample_name, "image");
}

TEST(InceptionV3, ShapesThroughTheBlocks) {
  Workload w = inception_v3(Precision::fp32);
  // The stem: 299 -> 149 (3x3/2 valid) -> 147 -> 147 -> 73 (pool) -> 73 -> 71 -> 35 (pool).
  const Layer& first = layer_named(w, "Conv2d_1a_3x3.conv");
  EXPECT_DOUBLE_EQ(first.forward_flops, 2.0 * 149 * 149 * 32 * 3 * 9);
  EXPECT_DOUBLE_EQ(first.backward_flops, first.forward_flops);  // the images need no gradient
  EXPECT_EQ(layer_named(w, "Mixed_5b.branch1x1.conv").conv->in_h, 35);
  EXPECT_EQ(layer_named(w, "Mixed_5b.branch1x1.conv").conv->in_channels, 192);
  // Mixed_5b concatenates 64 + 64 + 96 + 32 = 256 channels, which Mixed_5c reads.
  EXPECT_EQ(layer_named(w, "Mixed_5c.branch1x1.conv").conv->in_channels, 256);
  // Mixed_6a: 384 + 96 + 288 (the pooled input) = 768 channels at 17 x 17.
  EXPECT_EQ(layer_named(w, "Mixed_6b.branch1x1.conv").conv->in_channels, 768);
  EXPECT_EQ(layer_named(w, "Mixed_6b.branch1x1.conv").conv->in_h, 17);
  // Mixed_6b's 1x7 of 128 channels keeps 17 x 17: 17 * 17 * 128 outputs of 128 * 7 multiply-adds.
  const Layer& one_by_seven = layer_named(w, "Mixed_6b.branch7x7_2.conv");
  EXPECT_DOUBLE_EQ(one_by_seven.forward_flops, 2.0 * 17 * 17 * 128 * 128 * 7);
  EXPECT_EQ(one_by_seven.params, 128 * 128 * 7);
  // Mixed_7a: 320 + 192 + 768 = 1280 channels at 8 x 8; Mixed_7b: 320 + 4 x 384 + 192 = 2048.
  EXPECT_EQ(layer_named(w, "Mixed_7b.branch1x1.conv").conv->in_channels, 1280);
  EXPECT_EQ(layer_named(w, "Mixed_7b.branch1x1.conv").conv->in_h, 8);
  EXPECT_EQ(layer_named(w, "Mixed_7c.branch1x1.conv").conv->in_channels, 2048);
  EXPECT_EQ(layer_named(w, "fc").params, 2048 * 1000 + 1000);
}
