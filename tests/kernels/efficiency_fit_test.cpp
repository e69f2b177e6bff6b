// The efficiency-curve rule of `dasim calibrate` (kernels/efficiency_fit.hpp), the interference
// slowdown, and the sweep plans of the CUDA suite, on synthetic measurements whose expected
// points are worked out by hand in the comments (the same rule as the published-data converter,
// analysis/dasim_analysis/deepbench.py binned_curve / is_compute_bound).
#include "kernels/efficiency_fit.hpp"
#include "calibration/calibration.hpp"
#include "common/errors.hpp"
#include "kernels/calibrate.hpp"
#include "kernels/fit_calibration.hpp"
#include "kernels/suite_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace dasim::kernels {
namespace {

void expect_curve(const calibration::EfficiencyCurve& curve,
                  const std::vector<std::pair<double, double>>& want) {
  ASSERT_EQ(curve.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(curve[i].flops_per_call, want[i].first, 1e-9 * want[i].first) << "point " << i;
    EXPECT_NEAR(curve[i].fraction, want[i].second, 1e-12) << "point " << i;
  }
}

TEST(EfficiencyFit, OnePointPerHalfDecadeMedianFlopsAndMedianFraction) {
  // floor(2 log10 FLOPs): 1.2e7, 2e7, 3e7 -> 14.16, 14.60, 14.95: bin 14 = [1e7, 10^7.5 = 3.16e7);
  // 4e7, 6e7 -> 15.20, 15.56: bin 15; 1.5e9 -> 18.35: bin 18. Given out of order on purpose.
  std::vector<FlopsFraction> points = {{4e7, 0.5},   {1.5e9, 1.2}, {2e7, 0.4},
                                       {1.2e7, 0.2}, {6e7, 0.7},   {3e7, 0.3}};
  // Bin 14: median FLOPs 2e7, median of 0.2, 0.4, 0.3 = 0.3. Bin 15: an even count, so the means
  // (4e7 + 6e7) / 2 = 5e7 and (0.5 + 0.7) / 2 = 0.6. Bin 18: 1.2, clamped to 1 for a GEMM.
  BinnedCurve gemm = binned_curve(points, 1.0);
  expect_curve(gemm.curve, {{2e7, 0.3}, {5e7, 0.6}, {1.5e9, 1.0}});
  EXPECT_EQ(gemm.clamped, 1);
  // A convolution may exceed 1 (Winograd, FFT) up to 4: nothing is clamped.
  BinnedCurve conv = binned_curve(points, calibration::kMaxConvFraction);
  expect_curve(conv.curve, {{2e7, 0.3}, {5e7, 0.6}, {1.5e9, 1.2}});
  EXPECT_EQ(conv.clamped, 0);
  expect_curve(binned_curve({{1e10, 5.0}}, 4.0).curve, {{1e10, 4.0}});
}

TEST(EfficiencyFit, OneHalfDecadeSplitsIntoLowerAndUpperHalvesOfTheDistinctFlops) {
  // All in [1e8, 3.16e8): one bin. Distinct FLOPs 1e8, 1.2e8, 1.5e8, 2e8 (4 values): the upper
  // half starts at distinct[(4 + 1) / 2] = distinct[2] = 1.5e8. Lower: 1e8, 1.2e8 -> (1.1e8, 0.55);
  // upper: 1.5e8, 2e8, 2e8 -> median FLOPs 2e8, median of 0.7, 0.8, 0.9 = 0.8.
  BinnedCurve split = binned_curve({{2e8, 0.9}, {1e8, 0.5}, {1.5e8, 0.7}, {1.2e8, 0.6}, {2e8, 0.8}}, 1.0);
  expect_curve(split.curve, {{1.1e8, 0.55}, {2e8, 0.8}});
  // Three distinct values: the upper half starts at distinct[2], so it is the largest alone.
  expect_curve(binned_curve({{1e8, 0.2}, {1.5e8, 0.4}, {2e8, 0.9}}, 1.0).curve, {{1.25e8, 0.3}, {2e8, 0.9}});
  // One FLOPs value: one point, the median (mean of the two) fraction.
  expect_curve(binned_curve({{5e8, 0.3}, {5e8, 0.5}}, 1.0).curve, {{5e8, 0.4}});
}

TEST(EfficiencyFit, MedianIsTheMeanOfTheTwoMiddleValuesForAnEvenCount) {
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({5, 1, 3}), 3);
  EXPECT_THROW(median_of({}), std::invalid_argument);
}

TEST(EfficiencyFit, ComputeBoundGemmsReachTheRidgePoint) {
  // Ridge 100e12 / 2e12 = 50 FLOP/B. A square n x n x n GEMM in fp16 does 2 n^3 FLOPs over
  // 2 x 3 n^2 bytes: n / 3 FLOP/B, so n = 150 sits exactly on the ridge (compute-bound: >=) and
  // n = 149 (49.7) below it. In fp32 (4 bytes) the intensity is n / 6: 300 on the ridge.
  EXPECT_DOUBLE_EQ(gemm_element_bytes("fp16"), 2);
  EXPECT_DOUBLE_EQ(gemm_element_bytes("bf16"), 2);
  EXPECT_DOUBLE_EQ(gemm_element_bytes("tf32"), 4);
  EXPECT_DOUBLE_EQ(gemm_element_bytes("fp32"), 4);
  EXPECT_TRUE(gemm_is_compute_bound(150, 150, 150, 2, 100e12, 2e12));
  EXPECT_FALSE(gemm_is_compute_bound(149, 149, 149, 2, 100e12, 2e12));
  EXPECT_TRUE(gemm_is_compute_bound(300, 300, 300, 4, 100e12, 2e12));
  EXPECT_FALSE(gemm_is_compute_bound(299, 299, 299, 4, 100e12, 2e12));
  // A language-model GEMM, m 8192, n 16, k 8192: 2.1e9 FLOPs over 2 x (8192^2 + 2 x 8192 x 16) bytes
  // = 15.9 FLOP/B: memory-bound at this ridge despite its FLOPs.
  EXPECT_FALSE(gemm_is_compute_bound(8192, 16, 8192, 2, 100e12, 2e12));
}

TEST(EfficiencyFit, ConvKernelClassesAreTheComputeModels) {
  using workload::ConvShape;
  // {in, out, h, w, kernel_h, kernel_w, stride, pad, groups}
  EXPECT_EQ(conv_kernel_class(ConvShape{64, 256, 56, 56, 1, 1, 1, 0, 1}, "conv_fwd"), "conv_1x1.forward");
  EXPECT_EQ(conv_kernel_class(ConvShape{256, 512, 56, 56, 1, 1, 2, 0, 1}, "conv_bwd_data"),
            "conv_1x1.backward_data");  // a strided 1x1 is still a 1x1
  EXPECT_EQ(conv_kernel_class(ConvShape{64, 64, 56, 56, 3, 3, 1, 1, 1}, "conv_bwd_filter"),
            "conv_3x3_s1.backward_filter");
  EXPECT_EQ(conv_kernel_class(ConvShape{128, 128, 56, 56, 3, 3, 2, 1, 1}, "conv_fwd"), "conv_other.forward");
  EXPECT_EQ(conv_kernel_class(ConvShape{64, 64, 56, 56, 3, 3, 1, 1, 2}, "conv_fwd"), "conv_other.forward");
  EXPECT_EQ(conv_kernel_class(ConvShape{3, 64, 224, 224, 7, 7, 2, 3, 1}, "conv_fwd"), "conv_other.forward");
  EXPECT_THROW(conv_kernel_class(ConvShape{3, 64, 224, 224, 7, 7, 2, 3, 1}, "gemm"), std::invalid_argument);
}

// A measurement achieving `fraction` of `rate` FLOP/s.
Measurement timed(const std::string& kind, const std::string& kernel_class, const std::string& precision,
                  double flops, double fraction, double rate) {
  Measurement m;
  m.name = kind + "_" + precision + "_" + std::to_string(flops);
  m.kind = kind;
  m.kernel_class = kernel_class;
  m.precision = precision;
  m.flops = flops;
  double t = flops / (fraction * rate);
  m.stats = {3, t, t, t, 0};
  return m;
}

Measurement gemm(const std::string& precision, int m, int n, int k, double fraction, double rate) {
  Measurement g = timed("gemm", "gemm", precision, 2.0 * m * n * k, fraction, rate);
  g.params = {{"m", m}, {"n", n}, {"k", k}};
  return g;
}

Measurement plain(const std::string& kind, double bytes, double median_s) {
  Measurement m;
  m.name = kind;
  m.kind = kind;
  m.bytes = bytes;
  m.stats = {3, median_s, median_s, median_s, 0};
  return m;
}

// fitted.flops fp32 1e13 and fp16 1e14 (the best GEMMs below), memory 1e12 B/s: ridges 10 FLOP/B
// (fp32, intensity n / 6 for a square) and 100 FLOP/B (fp16, n / 3).
std::vector<Measurement> synthetic_suite() {
  return {
      gemm("fp32", 4096, 4096, 4096, 1.0, 1e13),  // 1.37e11 FLOPs, the fp32 rate
      gemm("fp32", 64, 64, 64, 0.25, 1e13),       // 5.24e5 FLOPs, intensity 10.7 >= 10: kept
      gemm("fp32", 48, 48, 48, 0.10, 1e13),       // intensity 8 < 10: memory-bound, left out
      gemm("fp16", 2048, 2048, 2048, 1.0, 1e14),  // 1.72e10 FLOPs, the fp16 rate
      gemm("fp16", 1024, 1024, 1024, 0.5, 1e14),  // 2.15e9 FLOPs, intensity 341: kept
      gemm("fp16", 8192, 16, 8192, 0.1, 1e14),    // 2.15e9 FLOPs too, but 15.9 FLOP/B: left out
      timed("conv_fwd", "conv_3x3_s1.forward", "fp16", 3e9, 1.6, 1e14),  // bin 18 (log10 9.48)
      timed("conv_fwd", "conv_3x3_s1.forward", "fp16", 5e9, 2.0, 1e14),  // bin 19 (log10 9.70)
      timed("conv_fwd", "conv_3x3_s1.forward", "bf16", 5e9, 1.0, 1e14),  // no bf16 GEMM rate
      timed("gemm", "gemm", "fp32", 2e9, 0.5, 1e13),  // no m, n, k: cannot be classified, left out
      plain("elementwise", 12e9, 12e-3),              // 1e12 B/s
      plain("launch", 0, 4e-6),
  };
}

TEST(EfficiencyFit, CurvesPerPrecisionAndClassFromSyntheticMeasurements) {
  std::vector<Measurement> ms = synthetic_suite();
  FitResult fit = fit_measurements(ms);
  EXPECT_NEAR(fit.fitted.flops.at("fp32"), 1e13, 1e13 * 1e-12);
  EXPECT_NEAR(fit.fitted.flops.at("fp16"), 1e14, 1e14 * 1e-12);
  EXPECT_NEAR(fit.fitted.memory_bandwidth_Bps, 1e12, 1e12 * 1e-12);
  const auto& curves = fit.fitted.efficiency_curves;
  // fp32 gemm: 5.24e5 (bin 11) at 0.25 and 1.37e11 (bin 22) at 1.0; the 48^3 GEMM is memory-bound.
  expect_curve(curves.at("fp32").at("gemm"), {{2.0 * 64 * 64 * 64, 0.25}, {2.0 * 4096 * 4096 * 4096, 1.0}});
  // fp16 gemm: bin 18 holds only the compute-bound 1024^3 (the 8192 x 16 x 8192 GEMM of equal FLOPs
  // would have made it (0.5 + 0.1) / 2 = 0.3), bin 20 the 2048^3.
  expect_curve(curves.at("fp16").at("gemm"),
               {{2.0 * 1024 * 1024 * 1024, 0.5}, {2.0 * 2048 * 2048 * 2048, 1.0}});
  // Convolution fractions above 1 stay (3x3 Winograd).
  expect_curve(curves.at("fp16").at("conv_3x3_s1.forward"), {{3e9, 1.6}, {5e9, 2.0}});
  EXPECT_EQ(curves.at("fp16").size(), 2u);
  EXPECT_EQ(curves.count("bf16"), 0u);
  EXPECT_NE(fit.sources.at("fitted.efficiency_curves.fp16").find("2 of 3 compute-bound"), std::string::npos)
      << fit.sources.at("fitted.efficiency_curves.fp16");
  EXPECT_NE(fit.sources.at("fitted.efficiency_curves.bf16").find("no bf16 GEMM rate"), std::string::npos);
  // The generic fp32 curves keep their old rule: every fp32 GEMM with FLOPs, capped at 1.
  EXPECT_EQ(fit.fitted.gemm_efficiency.size(), 4u);
}

TEST(EfficiencyFit, TheWrittenCurvesLoadBack) {
  SuiteResult result;
  result.device = {"synthetic GPU", "cuda", "driver", "toolkit", "sm_90"};
  result.measurements = synthetic_suite();
  calibration::Calibration c =
      make_calibration(result, "dasim calibrate --device cuda", "2026-12-01T00:00:00Z");
  calibration::Calibration loaded =
      calibration::parse_calibration(nlohmann::json::parse(calibration::to_json(c).dump()), "synthetic.json");
  ASSERT_EQ(loaded.fitted.efficiency_curves.size(), 2u);
  expect_curve(loaded.fitted.efficiency_curves.at("fp16").at("conv_3x3_s1.forward"),
               {{3e9, 1.6}, {5e9, 2.0}});
  EXPECT_EQ(loaded.fitted.compute_slowdown_under_collective, 0);  // no interference measured
}

TEST(FitCollectiveSlowdown, WithOverAloneMinusOneClampedToTheLoadersRange) {
  EXPECT_DOUBLE_EQ(collective_slowdown(1.0, 1.25), 0.25);
  EXPECT_DOUBLE_EQ(collective_slowdown(1.0, 0.9), 0.0);  // faster under the collective: noise, 0
  EXPECT_DOUBLE_EQ(collective_slowdown(1.0, 3.0), 0.99);
  EXPECT_DOUBLE_EQ(collective_slowdown(0.0, 1.0), 0.0);
}

TEST(FitCollectiveSlowdown, TheFp16PairWinsOverFp32) {
  auto pair = [](const std::string& precision, double alone_s, double with_s) {
    Measurement a = plain("interference_gemm_alone", 0, alone_s),
                w = plain("interference_gemm_with_allreduce", 0, with_s);
    a.precision = w.precision = precision;
    return std::vector<Measurement>{a, w};
  };
  std::vector<Measurement> ms = synthetic_suite();
  for (auto& m : pair("fp32", 2.0, 2.2)) ms.push_back(m);
  // fp32 alone: 2.2 / 2 - 1 = 0.1.
  ASSERT_TRUE(fit_collective_slowdown(ms));
  EXPECT_EQ(fit_collective_slowdown(ms)->precision, "fp32");
  EXPECT_NEAR(fit_collective_slowdown(ms)->slowdown, 0.1, 1e-12);
  for (auto& m : pair("fp16", 1e-3, 1.3e-3)) ms.push_back(m);
  // fp16 too: 1.3e-3 / 1e-3 - 1 = 0.3, and it is the one fitted.
  FitResult fit = fit_measurements(ms);
  EXPECT_NEAR(fit.fitted.compute_slowdown_under_collective, 0.3, 1e-12);
  EXPECT_NE(fit.sources.at("fitted.compute_slowdown_under_collective").find("fp16 GEMM"), std::string::npos);
  EXPECT_FALSE(fit_collective_slowdown(synthetic_suite()));
}

TEST(CalibrateSuitePlan, GpuGemmSweepSpansTenToTheSevenToTenToTheTwelveFlops) {
  std::vector<GemmSize> sweep = gpu_gemm_sweep(false);
  // 12 squares 192..8192 and 4 shapes x 4 token counts x 3 hidden sizes.
  EXPECT_EQ(sweep.size(), 12u + 48u);
  double lo = 1e300, hi = 0;
  for (const auto& g : sweep) {
    lo = std::min(lo, g.flops());
    hi = std::max(hi, g.flops());
  }
  EXPECT_DOUBLE_EQ(lo, 2.0 * 192 * 192 * 192);      // 1.4e7
  EXPECT_DOUBLE_EQ(hi, 2.0 * 8192 * 16384 * 4096);  // t 8192, h 4096, the MLP: 1.1e12 (= 8192^3 x 2)
  EXPECT_EQ(gpu_gemm_sweep(true).size(), 3u + 4u);
}

TEST(CalibrateSuitePlan, BnReluActivationsAreResNet50sFusedBatchNorms) {
  // Each BatchNorm that a ReLU follows normalises the output of the conv before it: conv1 (64 x
  // 112 x 112); per stage the bottleneck's 1x1 and 3x3 (the first block's 1x1 at the input size,
  // its 3x3 at the stride): stage 1 64 x 56 x 56, stage 2 128 x 56 x 56 then 128 x 28 x 28, stage 3
  // 256 x 28 / 14, stage 4 512 x 14 / 7. The bn3 + add + relu of each block is not fused.
  std::vector<std::tuple<int, int, int>> want = {{64, 112, 112}, {64, 56, 56},  {128, 56, 56}, {128, 28, 28},
                                                 {256, 28, 28},  {256, 14, 14}, {512, 14, 14}, {512, 7, 7}};
  std::vector<std::tuple<int, int, int>> got;
  for (const auto& a : workload_shapes(false).bn_relu) got.emplace_back(a.channels, a.h, a.w);
  EXPECT_EQ(got, want);
  got.clear();
  for (const auto& a : workload_shapes(true).bn_relu) got.emplace_back(a.channels, a.h, a.w);
  EXPECT_EQ(got, (std::vector<std::tuple<int, int, int>>{{512, 7, 7}, {256, 14, 14}}));  // the two smallest
}

TEST(CalibrateSuitePlan, BatchesPerDeviceAndTheTimeBudget) {
  EXPECT_EQ(default_suite_options(false, "cuda").batches, (std::vector<int>{32, 64, 128, 256}));
  EXPECT_EQ(default_suite_options(true, "cuda").batches, (std::vector<int>{1, 8}));
  EXPECT_EQ(default_suite_options(false, "cpu").batches, std::vector<int>{32});
  SuiteOptions options = default_suite_options(true);
  EXPECT_FALSE(options.over_budget());  // 0: no limit
  options.time_budget_s = 1e-6;
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_TRUE(options.over_budget());
}

TEST(CalibrateSuitePlan, BadBatchesAndBudgetsAreInputErrors) {
  CalibrateRequest request;
  request.device = "cpu";
  request.quick = true;
  request.out = "/nonexistent/x.json";
  request.batches = {0};
  EXPECT_THROW(run_calibration(request), InputError);
  request.batches = {};
  request.time_budget_s = -1;
  EXPECT_THROW(run_calibration(request), InputError);
}

}  // namespace
}  // namespace dasim::kernels
