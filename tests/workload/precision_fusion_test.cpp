// Precision modes as frameworks run them, and BN + ReLU fusion, on the built-in ResNet-50
// (25,557,032 parameters, torchvision's published count).
#include "common/errors.hpp"
#include "workload/buckets.hpp"
#include "workload/builtin_models.hpp"
#include "workload/fusion.hpp"
#include "workload/workload_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace dasim::workload;

namespace {

constexpr double kResnet50Params = 25'557'032;

Workload resnet(Precision precision, Fusion fusion = Fusion::none,
                std::optional<Precision> grad = std::nullopt) {
  WorkloadOptions options;
  options.precision = precision;
  options.fusion = fusion;
  options.grad_precision = grad;
  return load_workload("resnet50", options);
}

}  // namespace

TEST(PrecisionModes, AmpAllreducesFp32Gradients) {
  // PyTorch autocast keeps fp32 parameters, so param.grad and DDP's buckets are fp32.
  EXPECT_DOUBLE_EQ(resnet(Precision::amp).gradient_bytes(), 4 * kResnet50Params);
  EXPECT_DOUBLE_EQ(resnet(Precision::amp_bf16).gradient_bytes(), 4 * kResnet50Params);
  EXPECT_DOUBLE_EQ(resnet(Precision::tf32).gradient_bytes(), 4 * kResnet50Params);
  // model.half(): everything, gradients included, in 2 bytes.
  EXPECT_DOUBLE_EQ(resnet(Precision::fp16).gradient_bytes(), 2 * kResnet50Params);
  // A compression hook (fp16_compress_hook) halves what amp sends.
  EXPECT_DOUBLE_EQ(resnet(Precision::amp, Fusion::none, Precision::fp16).gradient_bytes(),
                   2 * kResnet50Params);
  double bucket_bytes = 0;
  for (const auto& b : plan_buckets(resnet(Precision::amp), 25 * 1024 * 1024)) bucket_bytes += b.bytes;
  EXPECT_DOUBLE_EQ(bucket_bytes, 4 * kResnet50Params);
}

TEST(PrecisionModes, ActivationsAreHalfUnderAutocast) {
  Workload fp32 = resnet(Precision::fp32), amp = resnet(Precision::amp), tf32 = resnet(Precision::tf32);
  EXPECT_DOUBLE_EQ(amp.activation_bytes() * 2, fp32.activation_bytes());
  EXPECT_DOUBLE_EQ(tf32.activation_bytes(), fp32.activation_bytes());  // tf32 stores fp32
}

TEST(PrecisionModes, GradPrecisionMustBeAnElementType) {
  WorkloadOptions options;
  options.grad_precision = Precision::amp;
  EXPECT_THROW(load_workload("resnet50", options), dasim::InputError);
}

TEST(Fusion, BnReluMovesTheBytesOfOnePass) {
  Workload plain = resnet(Precision::fp32), fused = resnet(Precision::fp32, Fusion::bn_relu);
  // ResNet-50's BN -> ReLU pairs: the stem's bn1 + relu, and bn1 + relu1, bn2 + relu2 in each of the
  // 16 bottlenecks = 33; bn3 is followed by the residual add (two inputs), so it stays apart.
  ASSERT_EQ(plain.layers.size() - fused.layers.size(), 33u);
  // Each fused ReLU's own read + write of its tensor disappears; FLOPs are kept.
  double relu_bytes = 0;
  for (size_t i = 1; i < plain.layers.size(); ++i)
    if (plain.layers[i - 1].kind == LayerKind::norm && plain.layers[i].kind == LayerKind::elementwise &&
        plain.layers[i].activation_bytes == plain.layers[i - 1].activation_bytes)
      relu_bytes += plain.layers[i].activation_bytes;
  // 2 x 4 B x (64x112x112 + 3 stages' ...) is what the loop sums; check it against the stem alone too.
  EXPECT_DOUBLE_EQ(plain.layers[2].activation_bytes, 2.0 * 4 * 64 * 112 * 112);
  EXPECT_DOUBLE_EQ(plain.activation_bytes() - fused.activation_bytes(), relu_bytes);
  EXPECT_DOUBLE_EQ(plain.forward_flops(), fused.forward_flops());
  EXPECT_DOUBLE_EQ(plain.backward_flops(), fused.backward_flops());
  EXPECT_EQ(plain.total_params(), fused.total_params());
  auto stem = std::find_if(fused.layers.begin(), fused.layers.end(),
                           [](const Layer& l) { return l.name == "bn1+relu"; });
  ASSERT_NE(stem, fused.layers.end());
  EXPECT_DOUBLE_EQ(stem->activation_bytes, 2.0 * 4 * 64 * 112 * 112);  // read + write once
}

TEST(Fusion, NamesParseAndBadNamesAreInputErrors) {
  EXPECT_EQ(parse_fusion("bn_relu"), Fusion::bn_relu);
  try {
    parse_fusion("all", "s.json", "fusion");
    FAIL();
  } catch (const dasim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json: fusion: expected one of none, bn_relu"), std::string::npos)
        << e.what();
  }
}
