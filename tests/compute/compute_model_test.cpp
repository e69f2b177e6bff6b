// Compute model on a tiny hand-made calibration: every expected time below is worked out by hand
// from the roofline formula, the efficiency points, per-shape entries and measured times.
#include "compute/compute_model.hpp"
#include "compute/step_prediction.hpp"

#include "common/errors.hpp"
#include "workload/shape_key.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace dasim;
using workload::Layer;
using workload::LayerKind;

namespace {

// fp32 1 TFLOP/s; GEMM efficiency 0.25 at 1e6 FLOPs/call rising to 1.0 at 1e9; conv efficiency 0.5
// everywhere (one point); 100 GB/s; 10 us launch overhead.
calibration::Calibration tiny() {
  calibration::Calibration c;
  c.device = {"tiny", "cpu", "", "", ""};
  c.date = "2026-11-29T00:00:00Z";
  c.measured = true;
  c.fitted.flops["fp32"] = 1e12;
  c.fitted.gemm_efficiency = {{1e6, 0.25}, {1e9, 1.0}};
  c.fitted.conv_efficiency = {{1e8, 0.5}};
  c.fitted.memory_bandwidth_Bps = 1e11;
  c.fitted.launch_overhead_s = 1e-5;
  return c;
}

Layer linear_layer() {
  Layer l;
  l.name = "fc";
  l.kind = LayerKind::linear;
  l.forward_flops = 1.25e5;
  l.backward_flops = 2.5e5;
  l.activation_bytes = 8000;
  l.params = 1000;
  l.gemm = workload::GemmShape{1, 250, 250};
  return l;
}

Layer conv_layer() {
  Layer l;
  l.name = "conv";
  l.kind = LayerKind::conv;
  l.forward_flops = 1e9;
  l.backward_flops = 2e9;
  l.activation_bytes = 1e5;
  l.params = 36864;
  l.conv = workload::ConvShape{64, 64, 56, 56, 3, 3, 1, 1, 1};
  return l;
}

}  // namespace

TEST(ComputeModel, ComputeBoundLinearUsesEfficiencyCurve) {
  compute::ComputeModel m(tiny(), "fp32");
  // batch 8: 1e6 FLOPs per call -> efficiency 0.25 -> 2.5e11 FLOP/s -> 4 us; memory 64 kB -> 0.64 us.
  EXPECT_NEAR(m.forward_time_s(linear_layer(), 8), 4e-6 + 1e-5, 1e-15);
  // Backward: 2e6 FLOPs at the forward call's efficiency (0.25) -> 8 us; memory 1.28 us.
  EXPECT_NEAR(m.backward_time_s(linear_layer(), 8), 8e-6 + 1e-5, 1e-15);
  // batch 8000: 1e9 FLOPs per call -> efficiency 1.0 -> 1 ms; memory 64 MB / 100 GB/s = 0.64 ms.
  EXPECT_NEAR(m.forward_time_s(linear_layer(), 8000), 1e-3 + 1e-5, 1e-12);
  // Half-way in log space (1e7.5 FLOPs per call) -> efficiency 0.625.
  EXPECT_NEAR(m.achieved_flops(LayerKind::linear, std::pow(10.0, 7.5)), 0.625e12, 1e-3);
}

TEST(ComputeModel, MemoryBoundLayer) {
  compute::ComputeModel m(tiny(), "fp32");
  Layer relu;
  relu.kind = LayerKind::elementwise;
  relu.forward_flops = 1e3;
  relu.backward_flops = 1e3;
  relu.activation_bytes = 1e6;
  // batch 10: 1e4 FLOPs -> 10 ns compute; 10 MB -> 100 us memory.
  EXPECT_NEAR(m.forward_time_s(relu, 10), 1e-4 + 1e-5, 1e-15);
  // Backward moves twice the bytes.
  EXPECT_NEAR(m.backward_time_s(relu, 10), 2e-4 + 1e-5, 1e-15);
}

TEST(ComputeModel, ConvUsesConvCurve) {
  compute::ComputeModel m(tiny(), "fp32");
  // batch 2: 2e9 FLOPs at 0.5 x 1e12 -> 4 ms; memory 2e5 B -> 2 us.
  EXPECT_NEAR(m.forward_time_s(conv_layer(), 2), 4e-3 + 1e-5, 1e-12);
  EXPECT_NEAR(m.backward_time_s(conv_layer(), 2), 8e-3 + 1e-5, 1e-12);
}

TEST(ComputeModel, PerShapeEntriesOverrideTheFormula) {
  auto cal = tiny();
  std::string key = workload::conv_shape_key(*conv_layer().conv);
  cal.per_shape.push_back({"conv_fwd", key, 2, "fp32", 0.003});
  cal.per_shape.push_back({"conv_bwd_data", key, 2, "fp32", 0.002});
  cal.per_shape.push_back({"conv_bwd_filter", key, 2, "fp32", 0.0025});
  cal.per_shape.push_back({"conv_fwd", key, 2, "fp16", 0.001});  // other precision: ignored
  cal.per_shape.push_back({"gemm", "m1_n250_k250", 8, "fp32", 5e-5});
  compute::ComputeModel m(cal, "fp32");
  EXPECT_DOUBLE_EQ(m.forward_time_s(conv_layer(), 2), 0.003);
  EXPECT_DOUBLE_EQ(m.backward_time_s(conv_layer(), 2), 0.0045);
  // Other batch: no entry, formula (batch 4: 4e9 / 5e11 = 8 ms).
  EXPECT_NEAR(m.forward_time_s(conv_layer(), 4), 8e-3 + 1e-5, 1e-12);
  // GEMM: forward measured, backward = 2 GEMMs of the forward's FLOPs.
  EXPECT_DOUBLE_EQ(m.forward_time_s(linear_layer(), 8), 5e-5);
  EXPECT_DOUBLE_EQ(m.backward_time_s(linear_layer(), 8), 1e-4);

  // A first layer (no input gradient: backward == forward FLOPs) needs only the filter entry.
  Layer first = conv_layer();
  first.backward_flops = first.forward_flops;
  EXPECT_DOUBLE_EQ(m.backward_time_s(first, 2), 0.0025);
  // A layer needing both: with the data entry missing it falls back to the formula.
  auto partial = tiny();
  partial.per_shape.push_back({"conv_bwd_filter", key, 2, "fp32", 0.0025});
  compute::ComputeModel p(partial, "fp32");
  EXPECT_NEAR(p.backward_time_s(conv_layer(), 2), 8e-3 + 1e-5, 1e-12);
}

TEST(ComputeModel, MeasuredTimesScaleWithBatch) {
  compute::ComputeModel m(tiny(), "fp32");
  Layer l = linear_layer();
  l.forward_time_s = 0.01;
  l.backward_time_s = 0.03;
  l.measured_batch = 64;
  EXPECT_DOUBLE_EQ(m.forward_time_s(l, 32), 0.005);
  EXPECT_DOUBLE_EQ(m.backward_time_s(l, 128), 0.06);
}

TEST(ComputeModel, PrecisionSelectionAndFallback) {
  auto cal = tiny();
  compute::ComputeModel fp16_missing(cal, "fp16");
  EXPECT_TRUE(fp16_missing.fell_back_to_fp32());
  EXPECT_DOUBLE_EQ(fp16_missing.peak_flops(), 1e12);
  cal.fitted.flops["fp16"] = 8e12;
  compute::ComputeModel fp16(cal, workload::Precision::fp16);
  EXPECT_FALSE(fp16.fell_back_to_fp32());
  // Conv batch 2 at 0.5 x 8e12: 2e9 / 4e12 = 0.5 ms.
  EXPECT_NEAR(fp16.forward_time_s(conv_layer(), 2), 5e-4 + 1e-5, 1e-12);
  EXPECT_THROW(compute::ComputeModel(cal, "fp8"), InputError);
  EXPECT_THROW(fp16.forward_time_s(conv_layer(), 0), InputError);
}

TEST(ComputeModel, UpdateAndStep) {
  compute::ComputeModel m(tiny(), "fp32");
  workload::Workload w;
  w.layers = {linear_layer(), conv_layer()};
  // SGD + momentum: 5 x 37,864 params x 4 B = 757,280 B at 100 GB/s = 7.5728 us, + launch.
  EXPECT_NEAR(m.update_time_s(w), 7.5728e-6 + 1e-5, 1e-15);
  w.precision = workload::Precision::bf16;
  EXPECT_NEAR(m.update_time_s(w), 3.7864e-6 + 1e-5, 1e-15);
  w.precision = workload::Precision::fp32;
  // batch 8: linear 14 us + 18 us; conv 8e9 / 5e11 = 16 ms + 10 us, backward 32 ms + 10 us.
  double expected = (4e-6 + 1e-5) + (8e-6 + 1e-5) + (16e-3 + 1e-5) + (32e-3 + 1e-5) + (7.5728e-6 + 1e-5);
  EXPECT_NEAR(compute::predict_step(w, m, 8).step_s(), expected, 1e-12);
  // A profiled update replaces the bandwidth model, whatever the calibration says.
  w.update_time_s = 1.5e-3;
  EXPECT_DOUBLE_EQ(m.update_time_s(w), 1.5e-3);
  EXPECT_NEAR(compute::predict_step(w, m, 8).step_s(), expected - (7.5728e-6 + 1e-5) + 1.5e-3, 1e-12);
}
