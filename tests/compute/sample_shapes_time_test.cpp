// A layer whose figures vary by micro-batch shape (workload.hpp `shapes`): the compute model times
// each shape as a layer of its own and weights the times by the shapes' shares. The expected times
// are worked by hand from the roofline on a calibration of one efficiency (1 TFLOP/s, 100 GB/s, a
// 10 us launch), and the host's per-kernel floor shows why the weights go on times, not on FLOPs.
#include "compute/compute_model.hpp"
#include "compute/step_prediction.hpp"
#include "support/scratch_dir.hpp"
#include "workload/builtin_models.hpp"
#include "workload/workload_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

using namespace dasim;
using workload::Layer;
using workload::LayerKind;
using workload::LayerShape;

namespace {

calibration::Calibration flat_calibration(double host_floor_s) {
  calibration::Calibration c;
  c.device = {"flat", "cpu", "", "", ""};
  c.date = "2026-12-04T00:00:00Z";
  c.measured = true;
  c.fitted.flops["fp32"] = 1e12;
  c.fitted.gemm_efficiency = {{1e3, 1.0}};  // every call at peak
  c.fitted.memory_bandwidth_Bps = 1e11;
  c.fitted.launch_overhead_s = 1e-5;
  c.fitted.host_overhead_per_kernel_s = host_floor_s;
  return c;
}

// A GEMM of 1e8 FLOPs per sample in a quarter of the micro-batches and 1e9 in the rest (a short
// and a long length bin), 1e3 bytes each, and its mean as the file reader leaves it.
Layer two_shape_gemm_layer() {
  Layer l;
  l.name = "fc";
  l.kind = LayerKind::linear;
  l.params = 1000;
  l.shapes = {LayerShape{0.25, 1e8, 2e8, 1e3, std::nullopt, std::nullopt},
              LayerShape{0.75, 1e9, 2e9, 1e3, std::nullopt, std::nullopt}};
  l.forward_flops = 0.25 * 1e8 + 0.75 * 1e9;
  l.backward_flops = 2 * l.forward_flops;
  l.activation_bytes = 1e3;
  return l;
}

}  // namespace

TEST(SampleShapesTime, EachShapeTimedThenWeightedByItsShare) {
  compute::ComputeModel model(flat_calibration(0), "fp32");
  // Batch 4: 4e8 FLOPs -> 0.4 ms, 4e9 -> 4 ms, each + 10 us launch (the bytes take 40 ns).
  EXPECT_NEAR(model.forward_time_s(two_shape_gemm_layer(), 4), 0.25 * 0.41e-3 + 0.75 * 4.01e-3, 1e-12);
  // Backward: twice the FLOPs, one launch per pass as the model counts a linear layer's backward.
  const Layer one = workload::in_shape(two_shape_gemm_layer(), two_shape_gemm_layer().shapes[1]);
  EXPECT_TRUE(one.shapes.empty());
  EXPECT_DOUBLE_EQ(one.forward_flops, 1e9);
  EXPECT_NEAR(model.backward_time_s(two_shape_gemm_layer(), 4),
              0.25 * model.backward_time_s(
                         workload::in_shape(two_shape_gemm_layer(), two_shape_gemm_layer().shapes[0]), 4) +
                  0.75 * model.backward_time_s(one, 4),
              1e-15);
}

TEST(SampleShapesTime, AFloorOnTheShortShapeMakesTheMeanOfTimesExceedTheTimeOfTheMean) {
  // The host dispatches a kernel in 1 ms: the short shape's 0.41 ms pass waits for it, the long
  // one's 4.01 ms does not. Mean of times: 0.25 x 1 + 0.75 x 4.01 = 3.2575 ms; the mean layer's
  // 3.1e9 FLOPs would take 3.11 ms.
  compute::ComputeModel model(flat_calibration(1e-3), "fp32");
  EXPECT_NEAR(model.forward_time_s(two_shape_gemm_layer(), 4), 3.2575e-3, 1e-12);
  Layer mean = two_shape_gemm_layer();
  mean.shapes.clear();
  EXPECT_NEAR(model.forward_time_s(mean, 4), 3.11e-3, 1e-12);
}

TEST(SampleShapesTime, StepPredictionSumsTheWeightedLayerTimes) {
  compute::ComputeModel model(flat_calibration(0), "fp32");
  workload::Workload w;
  w.shapes = {{0.25, 64}, {0.75, 128}};
  w.layers = {two_shape_gemm_layer()};
  const auto step = compute::predict_step(w, model, 4);
  EXPECT_NEAR(step.forward_s, 0.25 * 0.41e-3 + 0.75 * 4.01e-3, 1e-12);
}

TEST(SampleShapesTime, BinnedBertLargeStepIsTheShareWeightedStepOfEachLength) {
  // One sequence of 100 tokens, three of 500, bins of 128: BERT-large at 128 in a quarter of the
  // micro-batches and at 512 in the rest. Forward and backward are sums over layers, so the binned
  // step's are the share-weighted ones of the two models built on their own.
  std::string counts;
  for (int length = 1; length <= 512; ++length)
    counts += std::string(length > 1 ? ", " : "") + (length == 100 ? "1" : length == 500 ? "3" : "0");
  const auto path = dasim::testing::scratch_dir("dasim_binned_step_test") / "counts.json";
  std::ofstream(path) << R"({"counts": [)" + counts + "]}";
  workload::WorkloadOptions options;
  options.length_bins = workload::LengthBins{path.string(), 128};
  compute::ComputeModel model(flat_calibration(2e-6), "fp32");
  const auto binned = compute::predict_step(workload::load_workload("bert-large", options), model, 8);
  const auto at128 = compute::predict_step(workload::bert_large(workload::Precision::fp32, 128), model, 8);
  const auto at512 = compute::predict_step(workload::bert_large(workload::Precision::fp32, 512), model, 8);
  EXPECT_NEAR(binned.forward_s, 0.25 * at128.forward_s + 0.75 * at512.forward_s, 1e-12);
  EXPECT_NEAR(binned.backward_s, 0.25 * at128.backward_s + 0.75 * at512.backward_s, 1e-12);
  EXPECT_DOUBLE_EQ(binned.update_s, at512.update_s);  // the same parameters
}
