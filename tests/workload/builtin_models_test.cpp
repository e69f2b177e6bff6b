// Built-in models against published figures. Counting conventions: params are trainable
// parameters (weights + biases + norm scale/shift); MACs are the multiply-adds of conv and linear
// layers for one sample, forward only (what torchvision's "GFLOPS" column and the VGG paper quote).
#include "workload/builtin_models.hpp"

#include "support/workload_layers.hpp"

#include "common/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace dasim::workload;

using dasim::testing::layer_named;
using dasim::testing::layers_of_kind;

TEST(ResNet50, ParamsMatchTorchvisionExactly) {
  // torchvision.models.resnet50(): sum(p.numel() for p in model.parameters()) == 25,557,032.
  EXPECT_EQ(resnet50(Precision::fp32).total_params(), 25'557'032);
}

TEST(ResNet50, MacsMatchPublished) {
  // torchvision model card: 4.09 GFLOPS (multiply-adds) at 224x224; He et al. quote 3.8e9 for v1,
  // v1.5 moves the stride into the 3x3 conv and costs ~0.3 G more.
  double macs = resnet50(Precision::fp32).conv_linear_macs();
  EXPECT_NEAR(macs / 4.1e9, 1.0, 0.03);
}

TEST(ResNet50, StructureAndConventions) {
  Workload w = resnet50(Precision::fp32);
  EXPECT_EQ(layers_of_kind(w, LayerKind::conv), 53);  // 1 stem + 16 blocks x 3 + 4 downsample
  EXPECT_EQ(layers_of_kind(w, LayerKind::linear), 1);
  EXPECT_EQ(layers_of_kind(w, LayerKind::norm), 53);
  EXPECT_EQ(w.sample_name, "image");

  const Layer& conv1 = layer_named(w, "conv1");
  // 112 x 112 x 64 outputs, each 3 x 7 x 7 multiply-adds.
  EXPECT_DOUBLE_EQ(conv1.forward_flops, 2.0 * 112 * 112 * 64 * 3 * 7 * 7);
  // First layer: the images need no gradient, so backward is the weight gradient only.
  EXPECT_DOUBLE_EQ(conv1.backward_flops, conv1.forward_flops);
  EXPECT_DOUBLE_EQ(conv1.activation_bytes, (3.0 * 224 * 224 + 64.0 * 112 * 112) * 4);
  ASSERT_TRUE(conv1.conv.has_value());
  EXPECT_EQ(conv1.conv->stride, 2);
  EXPECT_EQ(conv1.conv->pad, 3);

  // v1.5: the stride-2 of stage 2 is in the 3x3 conv: 28 x 28 outputs from a 56 x 56 input.
  const Layer& c2 = layer_named(w, "layer2.0.conv2");
  ASSERT_TRUE(c2.conv.has_value());
  EXPECT_EQ(c2.conv->stride, 2);
  EXPECT_EQ(c2.conv->in_h, 56);
  EXPECT_DOUBLE_EQ(c2.forward_flops, 2.0 * 28 * 28 * 128 * 128 * 9);
  EXPECT_DOUBLE_EQ(c2.backward_flops, 2 * c2.forward_flops);
  EXPECT_EQ(layer_named(w, "layer2.0.conv1").conv->stride, 1);

  const Layer& relu = layer_named(w, "relu");
  EXPECT_DOUBLE_EQ(relu.backward_flops, relu.forward_flops);  // no weights: 1x
  EXPECT_EQ(layer_named(w, "fc").params, 2048 * 1000 + 1000);
  EXPECT_EQ(layer_named(w, "fc").gemm->k, 2048);
}

TEST(ResNet50, GradientBytesFollowPrecision) {
  EXPECT_DOUBLE_EQ(resnet50(Precision::fp32).gradient_bytes(), 25'557'032.0 * 4);
  EXPECT_DOUBLE_EQ(resnet50(Precision::fp16).gradient_bytes(), 25'557'032.0 * 2);
  EXPECT_DOUBLE_EQ(resnet50(Precision::bf16).gradient_bytes(), 25'557'032.0 * 2);
}

TEST(Vgg16, ParamsAndMacsMatchPublished) {
  Workload w = vgg16(Precision::fp32);
  // torchvision.models.vgg16(): 138,357,544 parameters; model card: 15.47 GFLOPS (multiply-adds).
  EXPECT_EQ(w.total_params(), 138'357'544);
  EXPECT_NEAR(w.conv_linear_macs() / 15.5e9, 1.0, 0.03);
  EXPECT_EQ(layers_of_kind(w, LayerKind::conv), 13);
  EXPECT_EQ(layers_of_kind(w, LayerKind::linear), 3);
  EXPECT_EQ(layer_named(w, "fc6").params, 25088LL * 4096 + 4096);
  EXPECT_EQ(layer_named(w, "conv1_1").params, 3 * 64 * 9 + 64);
}

TEST(BertLarge, ParamsMatchPublished) {
  // Counted: HuggingFace BertModel (embeddings, 24 encoder layers, pooler; no MLM/NSP heads) =
  // 335,141,888; Devlin et al. quote "340M" for the model including its pre-training heads.
  Workload w = bert_large(Precision::fp32);
  EXPECT_NEAR(double(w.total_params()) / 335e6, 1.0, 0.01);
  EXPECT_EQ(w.total_params(), 335'141'888);
  EXPECT_EQ(w.sequence_length, 128);
  EXPECT_EQ(w.sample_name, "sequence");
}

TEST(BertLarge, FlopsFollowSequenceLength) {
  for (int s : {128, 512}) {
    Workload w = bert_large(Precision::fp32, s);
    // Every encoder GEMM weight (QKV 3d^2, output d^2, FFN 2 x 4d^2 = 12 d^2) is applied to s rows;
    // the pooler to one row.
    double d = 1024;
    double expected_macs = 24 * 12 * d * d * s + d * d;
    EXPECT_DOUBLE_EQ(w.conv_linear_macs(), expected_macs) << s;
    // The attention core's kernels: Q K^T and P V (2 s^2 d FLOPs each), softmax (5 per score).
    const std::string core = "encoder.layer.0.attention.core";
    EXPECT_DOUBLE_EQ(layer_named(w, core + ".scores").forward_flops, 2.0 * s * s * d);
    EXPECT_DOUBLE_EQ(layer_named(w, core + ".context").forward_flops, 2.0 * s * s * d);
    EXPECT_DOUBLE_EQ(layer_named(w, core + ".softmax").forward_flops, 5.0 * 16 * s * s);
    // Dropout on the 16 x s x s probabilities, fp32: read 4 + write 4 + mask 1 byte per element,
    // forward and backward.
    EXPECT_DOUBLE_EQ(layer_named(w, core + ".dropout").activation_bytes, 9.0 * 16 * s * s);
    EXPECT_DOUBLE_EQ(*layer_named(w, core + ".dropout").backward_activation_bytes, 9.0 * 16 * s * s);
    // The division by sqrt(64) and the mask's add, fp32: each reads and writes the 16 x s x s
    // scores (2 x 8 bytes per element); backward only the division's (8 bytes per element).
    EXPECT_DOUBLE_EQ(layer_named(w, core + ".scale_mask").activation_bytes, 16.0 * 16 * s * s);
    EXPECT_DOUBLE_EQ(*layer_named(w, core + ".scale_mask").backward_activation_bytes, 8.0 * 16 * s * s);
    EXPECT_EQ(layer_named(w, "encoder.layer.0.intermediate.dense").gemm->rows_per_sample, s);
    // Query, key and value are three GEMMs of d x d (nn.Linear each in BertSelfAttention).
    for (const char* projection : {"query", "key", "value"}) {
      const auto& l = layer_named(w, std::string("encoder.layer.0.attention.") + projection);
      EXPECT_EQ(l.gemm->n, 1024) << projection;
      EXPECT_EQ(l.gemm->k, 1024) << projection;
      EXPECT_EQ(l.params, 1024 * 1024 + 1024) << projection;
    }
  }
}

TEST(BertLarge, DropoutWhereTheModelAppliesIt) {
  // HuggingFace BertModel: after the embeddings' LayerNorm, then per layer on the attention
  // probabilities, the attention output and the FFN output: 1 + 24 x 3 = 73.
  Workload w = bert_large(Precision::amp, 384);
  int dropouts = 0;
  for (const auto& l : w.layers) dropouts += l.name.find("dropout") != std::string::npos;
  EXPECT_EQ(dropouts, 73);
  // Under autocast the activations are fp16: 2 + 2 + 1 mask byte per element of s x 1024.
  EXPECT_DOUBLE_EQ(layer_named(w, "embeddings.dropout").activation_bytes, 5.0 * 384 * 1024);
}

TEST(Gpt2Xl, ParamsMatchPublished) {
  // Radford et al. list 1542M; HuggingFace gpt2-xl counts 1,557,611,200 with the LM head tied to
  // the token embedding (counted once).
  Workload w = gpt2_xl(Precision::fp32);
  EXPECT_NEAR(double(w.total_params()) / 1.557e9, 1.0, 0.01);
  EXPECT_EQ(w.total_params(), 1'557'611'200);
  EXPECT_EQ(layer_named(w, "lm_head").params, 0);
}

TEST(Gpt2Xl, CausalMaskIsAWhereForwardAndBackward) {
  // HuggingFace GPT-2: scores / sqrt(64), then torch.where(causal, scores, -inf): two kernels that
  // read and write the 25 x 1024 x 1024 scores (bf16: 2 x 4 bytes per element); backward the
  // division's and the where's (the same bytes again).
  Workload w = gpt2_xl(Precision::bf16, 1024);
  const double scores = 25.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(layer_named(w, "h.0.attn.core.scale_mask").activation_bytes, 8.0 * scores);
  EXPECT_DOUBLE_EQ(*layer_named(w, "h.0.attn.core.scale_mask").backward_activation_bytes, 8.0 * scores);
}

TEST(Gpt2Xl, LanguageModelLossStreamsTheShiftedLogits) {
  // HuggingFace GPT2LMHeadModel: lm_logits[..., :-1, :].contiguous(), then CrossEntropyLoss over
  // the (s - 1) x V shifted logits. Under autocast the loss runs in fp32: the logits are cast up
  // (read 2, write 4 bytes), log_softmax reads and writes them (8); backward nll_loss zero-fills
  // its gradient (4), log_softmax's backward reads it and the log-probabilities and writes (12),
  // the cast back reads 4 and writes 2. The shift copies the slice (2 + 2); its backward
  // zero-fills the full s x V gradient (2) and copies the slice into it (2 + 2).
  const double s = 1024, V = 50257, n = (s - 1) * V;
  Workload amp = gpt2_xl(Precision::amp, 1024);
  EXPECT_DOUBLE_EQ(layer_named(amp, "lm_loss.shift").activation_bytes, 4 * n);
  EXPECT_DOUBLE_EQ(*layer_named(amp, "lm_loss.shift").backward_activation_bytes, 2 * s * V + 4 * n);
  EXPECT_DOUBLE_EQ(layer_named(amp, "lm_loss.cross_entropy").activation_bytes, (6 + 8) * n);
  EXPECT_DOUBLE_EQ(*layer_named(amp, "lm_loss.cross_entropy").backward_activation_bytes, (4 + 12 + 6) * n);
  // In fp32 nothing is cast: 2 passes forward, 4 backward, 4 bytes each.
  Workload fp32 = gpt2_xl(Precision::fp32, 1024);
  EXPECT_DOUBLE_EQ(layer_named(fp32, "lm_loss.cross_entropy").activation_bytes, 8 * n);
  EXPECT_DOUBLE_EQ(*layer_named(fp32, "lm_loss.cross_entropy").backward_activation_bytes, 16 * n);
  EXPECT_DOUBLE_EQ(*layer_named(fp32, "lm_loss.shift").backward_activation_bytes, 4 * s * V + 8 * n);
  // The loss is the last layer and carries no parameters.
  EXPECT_EQ(fp32.layers.back().name, "lm_loss.cross_entropy");
  EXPECT_EQ(layer_named(fp32, "lm_loss.cross_entropy").params, 0);
}

TEST(Gpt2Xl, TrainingFlopsNearSixNT) {
  // Kaplan et al.: training FLOPs ~ 6 x (non-embedding params) x tokens, plus the attention and
  // the LM head. With s = 1024 the GEMMs alone are exactly 6 N s + 6 s d V.
  Workload w = gpt2_xl(Precision::fp32, 1024);
  double d = 1600, s = 1024, V = 50257;
  double non_embedding_weights = 48 * 12 * d * d;
  double gemm_training = 0;
  for (const auto& l : w.layers)
    if (l.kind == LayerKind::linear) gemm_training += l.forward_flops + l.backward_flops;
  EXPECT_DOUBLE_EQ(gemm_training, 6 * non_embedding_weights * s + 6 * s * d * V);
}

TEST(BuiltinModels, RejectSequenceLengthBeyondPositions) {
  EXPECT_THROW(bert_large(Precision::fp32, 513), dasim::InputError);
  EXPECT_THROW(gpt2_xl(Precision::fp32, 0), dasim::InputError);
}
