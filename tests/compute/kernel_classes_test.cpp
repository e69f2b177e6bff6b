// Measured efficiency curves per kernel class and compute precision, precision modes, host
// overhead and input wait: every expected time is worked out by hand below.
#include "compute/compute_model.hpp"
#include "compute/step_prediction.hpp"

#include <gtest/gtest.h>

using namespace dasim;
using compute::Pass;
using workload::Layer;
using workload::LayerKind;

namespace {

// fp32 1e12 FLOP/s, tf32 4e12, fp16 8e12; 1e11 B/s; 10 us launch; no generic curves.
calibration::Calibration base() {
  calibration::Calibration c;
  c.device = {"classes", "cuda", "", "", ""};
  c.date = "2026-12-01T00:00:00Z";
  c.measured = true;
  c.fitted.flops = {{"fp32", 1e12}, {"tf32", 4e12}, {"fp16", 8e12}};
  c.fitted.memory_bandwidth_Bps = 1e11;
  c.fitted.launch_overhead_s = 1e-5;
  return c;
}

Layer conv(int kernel, int stride, double forward_flops, double backward_flops) {
  Layer l;
  l.name = "conv";
  l.kind = LayerKind::conv;
  l.forward_flops = forward_flops;
  l.backward_flops = backward_flops;
  l.activation_bytes = 1e3;  // memory never binds below
  l.params = 1;
  l.conv = workload::ConvShape{64, 64, 56, 56, kernel, kernel, stride, kernel / 2, 1};
  return l;
}

// A 1000 x 1000 linear layer with its bias: two parameter tensors, 1,001,000 parameters.
Layer linear_with_bias() {
  Layer l;
  l.kind = LayerKind::linear;
  l.params = 1'001'000;
  l.gemm = workload::GemmShape{1, 1000, 1000};
  return l;
}

}  // namespace

TEST(KernelClass, NamesFollowShapeAndPass) {
  EXPECT_EQ(compute::kernel_class(conv(1, 1, 1, 2), Pass::forward), "conv_1x1.forward");
  EXPECT_EQ(compute::kernel_class(conv(3, 1, 1, 2), Pass::backward_data), "conv_3x3_s1.backward_data");
  EXPECT_EQ(compute::kernel_class(conv(3, 2, 1, 2), Pass::backward_filter), "conv_other.backward_filter");
  EXPECT_EQ(compute::kernel_class(conv(7, 2, 1, 2), Pass::forward), "conv_other.forward");
  Layer fc;
  fc.kind = LayerKind::linear;
  EXPECT_EQ(compute::kernel_class(fc, Pass::backward_data), "gemm");
  Layer relu;
  relu.kind = LayerKind::elementwise;
  EXPECT_EQ(compute::kernel_class(relu, Pass::forward), "");
}

TEST(KernelClass, EachPassUsesItsClassCurve) {
  auto c = base();
  // Winograd-like 3x3 forward at 2x the fp32 rate; its input gradient at 1.0, its weight gradient
  // at 0.5; 1x1 forward at 0.8 (one point each: flat).
  c.fitted.efficiency_curves["fp32"]["conv_3x3_s1.forward"] = {{1e9, 2.0}};
  c.fitted.efficiency_curves["fp32"]["conv_3x3_s1.backward_data"] = {{1e9, 1.0}};
  c.fitted.efficiency_curves["fp32"]["conv_3x3_s1.backward_filter"] = {{1e9, 0.5}};
  c.fitted.efficiency_curves["fp32"]["conv_1x1.forward"] = {{1e9, 0.8}};
  c.fitted.conv_efficiency = {{1e9, 0.25}};  // the generic fallback, for classes without a curve
  compute::ComputeModel m(c, workload::Precision::fp32);
  // 3x3 s1, batch 1: forward 1e9 FLOPs at 2e12 -> 0.5 ms.
  EXPECT_NEAR(m.forward_time_s(conv(3, 1, 1e9, 2e9), 1), 5e-4 + 1e-5, 1e-12);
  // Backward: input gradient 1e9 at 1e12 (1 ms) + weight gradient 1e9 at 5e11 (2 ms).
  EXPECT_NEAR(m.backward_time_s(conv(3, 1, 1e9, 2e9), 1), 3e-3 + 1e-5, 1e-12);
  // A first layer (no input gradient): the weight gradient only, 2 ms.
  EXPECT_NEAR(m.backward_time_s(conv(3, 1, 1e9, 1e9), 1), 2e-3 + 1e-5, 1e-12);
  // 1x1: forward 0.8 -> 1.25 ms; backward has no 1x1 curve: generic 0.25 -> 2e9 / 2.5e11 = 8 ms.
  EXPECT_NEAR(m.forward_time_s(conv(1, 1, 1e9, 2e9), 1), 1.25e-3 + 1e-5, 1e-12);
  EXPECT_NEAR(m.backward_time_s(conv(1, 1, 1e9, 2e9), 1), 8e-3 + 1e-5, 1e-12);
  // Strided 3x3 is conv_other: generic 0.25 -> 4 ms.
  EXPECT_NEAR(m.forward_time_s(conv(3, 2, 1e9, 2e9), 1), 4e-3 + 1e-5, 1e-12);
}

TEST(KernelClass, CurvesBelongToTheirPrecision) {
  auto c = base();
  c.fitted.efficiency_curves["fp32"]["conv_3x3_s1.forward"] = {{1e9, 2.0}};
  c.fitted.efficiency_curves["fp16"]["conv_3x3_s1.forward"] = {{1e9, 0.5}};
  // amp computes convolutions in fp16: 1e9 at 0.5 x 8e12 = 0.25 ms.
  compute::ComputeModel amp(c, workload::Precision::amp);
  EXPECT_EQ(amp.compute_precision(), "fp16");
  EXPECT_NEAR(amp.forward_time_s(conv(3, 1, 1e9, 2e9), 1), 2.5e-4 + 1e-5, 1e-12);
  // tf32 has no curve: the rate alone (1e9 / 4e12 = 0.25 ms), not fp32's curve.
  compute::ComputeModel tf32(c, workload::Precision::tf32);
  EXPECT_NEAR(tf32.forward_time_s(conv(3, 1, 1e9, 2e9), 1), 2.5e-4 + 1e-5, 1e-12);
  // bf16 is not calibrated: fp32 rate and fp32's curves, which describe that rate.
  compute::ComputeModel bf16(c, workload::Precision::amp_bf16);
  EXPECT_TRUE(bf16.fell_back_to_fp32());
  EXPECT_NEAR(bf16.forward_time_s(conv(3, 1, 1e9, 2e9), 1), 5e-4 + 1e-5, 1e-12);
}

TEST(KernelClass, ElementwiseLayersStayOnCudaCores) {
  // tf32 and amp speed up GEMM-like layers only: a compute-bound element-wise layer keeps fp32's rate.
  Layer act;
  act.kind = LayerKind::elementwise;
  act.forward_flops = 1e9;
  act.backward_flops = 1e9;
  act.activation_bytes = 1;
  compute::ComputeModel tf32(base(), workload::Precision::tf32);
  EXPECT_NEAR(tf32.forward_time_s(act, 1), 1e-3 + 1e-5, 1e-12);
}

TEST(HostOverhead, ShortKernelsWaitForTheHost) {
  auto c = base();
  c.fitted.host_overhead_per_kernel_s = 50e-6;
  compute::ComputeModel m(c, workload::Precision::fp32);
  Layer relu;
  relu.kind = LayerKind::elementwise;
  relu.activation_bytes = 1e5;  // 1 us of memory + 10 us launch < 50 us of host dispatch
  EXPECT_DOUBLE_EQ(m.forward_time_s(relu, 1), 50e-6);
  // A long kernel hides the host: 1e9 FLOPs at 1e12 = 1 ms + launch.
  EXPECT_NEAR(m.forward_time_s(conv(3, 1, 1e9, 2e9), 1), 1e-3 + 1e-5, 1e-12);
}

TEST(PrecisionModes, AmpUpdateCountsMasterWeightsCastAndUnscale) {
  compute::ComputeModel m(base(), workload::Precision::amp);
  workload::Workload w;
  w.precision = workload::Precision::amp;
  Layer l = conv(3, 1, 1, 2);
  l.params = 1'000'000;
  w.layers = {l};
  // fp32 SGD momentum 5 x 4 B + cast (4 + 2) + unscale (4 + 4) = 34 B per parameter = 34 MB at
  // 100 GB/s = 340 us, + 3 launches (update, cast, unscale).
  EXPECT_NEAR(m.update_time_s(w), 340e-6 + 3e-5, 1e-12);
  w.precision = workload::Precision::fp16;  // model.half(): 5 x 2 B, one launch
  EXPECT_NEAR(m.update_time_s(w), 100e-6 + 1e-5, 1e-12);
}

TEST(InputPipeline, StepWaitsForASlowLoader) {
  auto c = base();
  c.fitted.input_per_sample_s = 1e-3;
  compute::ComputeModel m(c, workload::Precision::fp32);
  workload::Workload w;
  w.layers = {conv(3, 1, 1e9, 1e9)};
  w.layers[0].params = 0;  // no update traffic: update = one launch
  // batch 4: compute = fwd 4 ms + 10 us, bwd 4 ms + 10 us, update 10 us = 8.03 ms; loader 4 ms:
  // hidden.
  EXPECT_NEAR(compute::predict_step(w, m, 4).step_s(), 8.03e-3, 1e-12);
  // batch 4 with a 3 ms-per-sample loader: 12 ms of input, the GPU waits 12 - 8.03 ms.
  c.fitted.input_per_sample_s = 3e-3;
  compute::ComputeModel slow(c, workload::Precision::fp32);
  EXPECT_NEAR(compute::predict_step(w, slow, 4).step_s(), 12e-3, 1e-12);
  auto step = compute::predict_step(w, slow, 4);
  EXPECT_NEAR(step.input_wait_s, 12e-3 - 8.03e-3, 1e-12);
  EXPECT_NEAR(step.samples_per_s(), 4 / 12e-3, 1e-6);
}

TEST(PrecisionModes, OptimizerStreams) {
  compute::ComputeModel m(base(), workload::Precision::fp32);
  workload::Workload w;
  Layer l = conv(3, 1, 1, 2);
  l.params = 1'000'000;
  w.layers = {l};
  w.optimizer = workload::Optimizer::adam;  // 7 x 4 B = 28 MB at 100 GB/s = 280 us, one kernel
  EXPECT_NEAR(m.update_time_s(w), 280e-6 + 1e-5, 1e-12);
  // FusedLAMB: the two stages' 10 streams and the norms of g, w and u: 13 x 4 B = 520 us; four
  // norms of two kernels (g, the blend of the fp32 and fp16 lists' norms, w, u) and two stages.
  w.optimizer = workload::Optimizer::lamb;
  EXPECT_NEAR(m.update_time_s(w), 520e-6 + 10e-5, 1e-12);
  w.precision = workload::Precision::amp;  // + cast 6 B + unscale 8 B = 66 B: 660 us, 12 kernels
  compute::ComputeModel amp(base(), workload::Precision::amp);
  EXPECT_NEAR(amp.update_time_s(w), 660e-6 + 12e-5, 1e-12);
}

// Global-norm clipping (DeepLearningExamples' GradientClipper): 1,000,000 fp32 gradients at
// 100 GB/s. The norm reads them once: 4 MB = 40 us and two launches (partial sums, cleanup) of
// 10 us. With the scale it also reads and writes them: 12 MB = 120 us and three launches. Adam
// alone is 7 x 4 MB = 280 us + one launch.
TEST(PrecisionModes, GlobalNormClippingReadsTheGradientsBeforeTheUpdate) {
  compute::ComputeModel m(base(), workload::Precision::fp32);
  workload::Workload w;
  Layer l = conv(3, 1, 1, 2);
  l.params = 1'000'000;
  w.layers = {l};
  w.optimizer = workload::Optimizer::adam;
  EXPECT_NEAR(m.update_time_s(w), 280e-6 + 1e-5, 1e-12);
  w.grad_clip = workload::GradClip::norm;
  EXPECT_NEAR(m.update_time_s(w), 320e-6 + 3e-5, 1e-12);
  w.grad_clip = workload::GradClip::norm_and_scale;
  EXPECT_NEAR(m.update_time_s(w), 400e-6 + 4e-5, 1e-12);
  // amp: the clipper reads the unscaled fp32 gradients (4 B), after the cast (6 B) and the
  // unscale (8 B): 7 x 4 + 6 + 8 + 4 = 46 B = 460 us, adam + cast + unscale + 2 clip launches.
  w.precision = workload::Precision::amp;
  w.grad_clip = workload::GradClip::norm;
  compute::ComputeModel amp(base(), workload::Precision::amp);
  EXPECT_NEAR(amp.update_time_s(w), 460e-6 + 5e-5, 1e-12);
  // The parts: adam 280 us + one launch, cast and unscale 140 us + two, the norm 40 us + two.
  const auto parts = amp.update_parts(w);
  EXPECT_NEAR(parts.optimizer_s, 280e-6 + 1e-5, 1e-12);
  EXPECT_NEAR(parts.mixed_precision_s, 140e-6 + 2e-5, 1e-12);
  EXPECT_NEAR(parts.clip_s, 40e-6 + 2e-5, 1e-12);
  EXPECT_EQ(parts.zero_fill_s, 0);
  // model.half(): 2 B gradients, 7 x 2 + 2 = 16 B = 160 us.
  w.precision = workload::Precision::fp16;
  EXPECT_NEAR(amp.update_time_s(w), 160e-6 + 3e-5, 1e-12);
}

// zero_grad() in PyTorch 1.x: a 1000 x 1000 linear layer with its bias is two tensors of
// 1,001,000 fp32 gradients at 100 GB/s, 10 us per launch. Backward adds each new gradient into
// the zeroed one (read two, write one: 12.012 MB = 120.12 us, two launches); the update fills
// both with zeros (4.004 MB = 40.04 us, two launches) beside SGD's 5 streams (200.2 us, one).
TEST(PrecisionModes, ZeroedGradientsCostAFillAndAnAccumulationPerTensor) {
  compute::ComputeModel m(base(), workload::Precision::fp32);
  workload::Workload w;
  Layer linear = linear_with_bias();
  linear.forward_flops = 2e6;
  linear.backward_flops = 4e6;
  w.layers = {linear};
  EXPECT_EQ(m.gradient_accumulation_s(w, linear), 0);  // set_to_none: backward stores the gradient
  EXPECT_NEAR(m.update_time_s(w), 200.2e-6 + 1e-5, 1e-12);
  const double backward = m.backward_time_s(linear, 1);
  const auto none = compute::predict_step(w, m, 1);
  w.zero_grad = workload::ZeroGrad::zero;
  EXPECT_NEAR(m.gradient_accumulation_s(w, linear), 120.12e-6 + 2e-5, 1e-12);
  EXPECT_NEAR(m.layer_backward_s(w, linear, 1), backward + 120.12e-6 + 2e-5, 1e-12);
  EXPECT_NEAR(m.update_time_s(w), 240.24e-6 + 3e-5, 1e-12);
  const auto zero = compute::predict_step(w, m, 1);
  EXPECT_NEAR(zero.backward_s - none.backward_s, 140.12e-6, 1e-12);
  EXPECT_NEAR(zero.update_s - none.update_s, 60.04e-6, 1e-12);
  // The step report names both: the accumulation inside backward, the fills inside the update.
  EXPECT_NEAR(zero.gradient_accumulation_s, 140.12e-6, 1e-12);
  EXPECT_NEAR(zero.update_parts.zero_fill_s, 60.04e-6, 1e-12);
  EXPECT_NEAR(zero.update_parts.optimizer_s, 210.2e-6, 1e-12);
  EXPECT_EQ(none.gradient_accumulation_s, 0);
  const auto text = compute::render_step(zero, w, m, "classes.json");
  EXPECT_NE(text.find("(of which 0.140 ms adding into zeroed gradients)"), std::string::npos) << text;
  EXPECT_NE(text.find("(optimizer 0.210 ms, zero_grad fills 0.060 ms)"), std::string::npos) << text;
  const auto json = compute::to_json(zero, w, m, "classes.json");
  EXPECT_NEAR(json["update_parts"]["zero_fill_s"].get<double>(), 60.04e-6, 1e-12);
  EXPECT_NEAR(json["gradient_accumulation_s"].get<double>(), 140.12e-6, 1e-12);
  // Sharded over two GPUs (fsdp) each accumulates half of each gradient; the launches stay.
  EXPECT_NEAR(m.gradient_accumulation_s(w, linear, 2), 60.06e-6 + 2e-5, 1e-12);
  // apex amp fills the gradients, then sets them to None before backward: the fills alone.
  w.zero_grad = workload::ZeroGrad::fill_only;
  EXPECT_EQ(m.gradient_accumulation_s(w, linear), 0);
  EXPECT_NEAR(m.update_time_s(w), 240.24e-6 + 3e-5, 1e-12);
  // A layer timed by a profiler (times for measured_batch samples) already holds what its run did;
  // times without a measured batch are not used, so neither is the exemption.
  w.zero_grad = workload::ZeroGrad::zero;
  linear.forward_time_s = 1e-3;
  linear.backward_time_s = 2e-3;
  EXPECT_NEAR(m.gradient_accumulation_s(w, linear), 120.12e-6 + 2e-5, 1e-12);
  linear.measured_batch = 1;
  EXPECT_EQ(m.gradient_accumulation_s(w, linear), 0);
}

// BertAdam loops over the tensors: a 1000 x 1000 linear layer with its bias and a 2,000-parameter
// LayerNorm are four tensors. The weight decays (32 streams, 19 kernels); the bias and the norm's
// scale and shift do not (27 streams, 17 kernels each): 4 B x (32 x 1e6 + 27 x 3,000) =
// 128,324,000 B at 100 GB/s = 1.28324 ms, and 19 + 3 x 17 = 70 launches of 10 us = 0.7 ms. The
// fused adam moves 7 x 1,003,000 x 4 B in one kernel: 0.28084 ms + 10 us.
TEST(PrecisionModes, PerTensorOptimizerPaysEachTensorsKernels) {
  compute::ComputeModel m(base(), workload::Precision::fp32);
  workload::Workload w;
  Layer linear = linear_with_bias();
  Layer norm;
  norm.kind = LayerKind::norm;
  norm.params = 2'000;
  w.layers = {linear, norm};
  w.optimizer = workload::Optimizer::bert_adam;
  EXPECT_NEAR(m.update_time_s(w), 1.28324e-3 + 0.7e-3, 1e-12);
  w.optimizer = workload::Optimizer::adam;
  EXPECT_NEAR(m.update_time_s(w), 0.28084e-3 + 1e-5, 1e-12);
}

TEST(KernelClass, BackwardBytesWhenGiven) {
  compute::ComputeModel m(base(), workload::Precision::fp32);
  Layer dropout;
  dropout.kind = LayerKind::elementwise;
  dropout.activation_bytes = 9e5;
  // Default: backward streams twice the forward's bytes (18 us at 100 GB/s) ...
  EXPECT_NEAR(m.backward_time_s(dropout, 1), 18e-6 + 1e-5, 1e-15);
  // ... unless the layer says what its backward moves (a dropout: as much as its forward).
  dropout.backward_activation_bytes = 9e5;
  EXPECT_NEAR(m.backward_time_s(dropout, 1), 9e-6 + 1e-5, 1e-15);
}

TEST(KernelClass, AsymmetricStrideIsOther) {
  Layer l = conv(3, 1, 1, 2);
  l.conv->pad_w = 0;  // asymmetric padding alone keeps the 3x3 stride-1 family
  EXPECT_EQ(compute::kernel_class(l, Pass::forward), "conv_3x3_s1.forward");
  l.conv->stride_w = 2;  // stride (1, 2)
  EXPECT_EQ(compute::kernel_class(l, Pass::forward), "conv_other.forward");
  Layer one = conv(1, 2, 1, 2);
  one.conv->stride_w = 1;  // a 1x1 with stride (2, 1)
  EXPECT_EQ(compute::kernel_class(one, Pass::backward_data), "conv_other.backward_data");
}

TEST(Concat, MemoryBoundBothWays) {
  // The memory-bound rule of every FLOP-free layer: time = bytes / bandwidth + launch. A concat of
  // Inception v3 Mixed_5b's 4 branches (64 + 64 + 96 + 32 = 256 channels at 35x35, fp32): branch
  // bytes 256 * 35 * 35 * 4 = 1,254,400 B per sample, read once and written once = 2,508,800 B.
  compute::ComputeModel m(base(), workload::Precision::fp32);
  Layer cat;
  cat.kind = LayerKind::concat;
  cat.activation_bytes = 2 * 1254400.0;
  EXPECT_EQ(compute::kernel_class(cat, Pass::forward), "");
  // Forward, batch 1: 2,508,800 / 1e11 = 25.088 us + 10 us launch.
  EXPECT_NEAR(m.forward_time_s(cat, 1), 25.088e-6 + 1e-5, 1e-15);
  // Backward (a split) moves the same bytes, not the default twice: 25.088 us + 10 us.
  EXPECT_NEAR(m.backward_time_s(cat, 1), 25.088e-6 + 1e-5, 1e-15);
  // Batch 8: 8 x 2,508,800 = 20,070,400 B = 200.704 us + 10 us.
  EXPECT_NEAR(m.forward_time_s(cat, 8), 200.704e-6 + 1e-5, 1e-15);
  EXPECT_NEAR(m.backward_time_s(cat, 8), 200.704e-6 + 1e-5, 1e-15);
}

TEST(StepByKind, SumsEachKindsPassesLargestFirst) {
  compute::ComputeModel m(base(), workload::Precision::fp32);
  workload::Workload w;
  Layer dropout;
  dropout.kind = LayerKind::elementwise;
  dropout.activation_bytes = 9e5;
  w.layers = {conv(3, 1, 1e9, 1e9), dropout, conv(3, 1, 1e9, 2e9)};
  auto step = compute::predict_step(w, m, 1);
  auto kinds = compute::time_by_kind(step, w);
  ASSERT_EQ(kinds.size(), 2u);
  // Convolutions: forward 1 ms + 10 us each; backward 1 ms (weight gradient only) + 10 us and
  // 1 ms + 1 ms (weight and input gradients) + 10 us, at 1e12 FLOP/s.
  EXPECT_EQ(kinds[0].kind, LayerKind::conv);
  EXPECT_NEAR(kinds[0].forward_s, 2 * (1e-3 + 1e-5), 1e-12);
  EXPECT_NEAR(kinds[0].backward_s, (1e-3 + 1e-5) + (2e-3 + 1e-5), 1e-12);
  // The dropout: 0.9 MB forward, 1.8 MB backward at 100 GB/s, + 10 us each.
  EXPECT_EQ(kinds[1].kind, LayerKind::elementwise);
  EXPECT_NEAR(kinds[1].forward_s, 9e-6 + 1e-5, 1e-15);
  EXPECT_NEAR(kinds[1].backward_s, 18e-6 + 1e-5, 1e-15);
  // The listing and its JSON carry the same split.
  const auto json = compute::to_json(step, w, m, "classes.json");
  ASSERT_EQ(json["by_kind"].size(), 2u);
  EXPECT_EQ(json["by_kind"][0]["kind"], "conv");
  EXPECT_NEAR(json["by_kind"][1]["backward_s"].get<double>(), 18e-6 + 1e-5, 1e-15);
  const auto text = compute::render_step(step, w, m, "classes.json");
  EXPECT_NE(text.find("    conv              5.040 ms  99.1%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    elementwise       0.047 ms   0.9%\n"), std::string::npos) << text;
}
