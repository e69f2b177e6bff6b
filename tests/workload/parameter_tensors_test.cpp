// Parameter tensors as an optimizer iterates over them, against shapes worked out by hand and
// BERT-large's published module structure.
#include "workload/parameter_tensors.hpp"
#include "workload/builtin_models.hpp"

#include <gtest/gtest.h>

using namespace dasim::workload;

namespace {

Layer with(LayerKind kind, int64_t params) {
  Layer l;
  l.kind = kind;
  l.params = params;
  return l;
}

}  // namespace

TEST(ParameterTensors, WeightsDecayBiasesAndNormsDoNot) {
  Layer linear = with(LayerKind::linear, 1024 * 1024 + 1024);
  linear.gemm = GemmShape{128, 1024, 1024};
  auto t = parameter_tensors(linear);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].elements, 1024 * 1024);
  EXPECT_TRUE(t[0].weight_decay);
  EXPECT_EQ(t[1].elements, 1024);
  EXPECT_FALSE(t[1].weight_decay);

  // ResNet's 3x3 convolutions have no bias: 64 x 64 x 3 x 3 = 36,864, one tensor.
  Layer conv = with(LayerKind::conv, 36'864);
  conv.conv = ConvShape{64, 64, 56, 56, 3, 3, 1, 1, 1};
  t = parameter_tensors(conv);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_TRUE(t[0].weight_decay);
  // A depthwise convolution (groups = channels) with a bias: 32 x 1 x 3 x 3 + 32.
  Layer depthwise = with(LayerKind::conv, 288 + 32);
  depthwise.conv = ConvShape{32, 32, 56, 56, 3, 3, 1, 1, 32};
  t = parameter_tensors(depthwise);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].elements, 288);
  EXPECT_EQ(t[1].elements, 32);

  t = parameter_tensors(with(LayerKind::norm, 2048));  // LayerNorm's weight and bias
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].elements, 1024);
  EXPECT_FALSE(t[0].weight_decay || t[1].weight_decay);

  EXPECT_TRUE(parameter_tensors(with(LayerKind::elementwise, 0)).empty());
  // A linear layer without a shape (a hand-written file) is one decaying tensor.
  t = parameter_tensors(with(LayerKind::linear, 500));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_TRUE(t[0].weight_decay);
}

// BERT-large (Devlin et al.: 24 layers, hidden 1024): per encoder layer query, key, value, attention
// output, intermediate and output dense (a weight and a bias each) and two LayerNorms (two each):
// 16 tensors, 24 x 16 = 384; the embeddings' LayerNorm 2, the pooler 2, and the embedding tables,
// which dasim holds as one layer: 1. Decaying: 6 weights per layer, the pooler's, the tables.
TEST(ParameterTensors, BertLargeHas389TensorsOf146Decaying) {
  const auto w = bert_large(Precision::fp32);
  const auto tensors = parameter_tensors(w);
  EXPECT_EQ(tensors.size(), 389u);
  int64_t decaying = 0, elements = 0;
  for (const auto& t : tensors) {
    decaying += t.weight_decay;
    elements += t.elements;
  }
  EXPECT_EQ(decaying, 24 * 6 + 1 + 1);
  EXPECT_EQ(elements, w.total_params());
}
