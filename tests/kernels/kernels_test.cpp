// Tests of the CPU microbenchmarks and the calibration they produce. Expectations come from
// outside the code under test: a naive direct convolution, closed-form FLOP counts, the cubic
// cost of GEMM, and hand-computed fits.
#include "calibration/calibration.hpp"
#include "common/errors.hpp"
#include "kernels/calibrate.hpp"
#include "kernels/cpu_suite.hpp"
#include "kernels/efficiency_fit.hpp"
#include "kernels/fit_calibration.hpp"
#include "kernels/im2col_conv.hpp"
#include "kernels/stats.hpp"
#include "support/scratch_dir.hpp"
#include "workload/shape_key.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace dasim::kernels {
extern "C" void openblas_set_num_threads(int threads);

namespace {

// Direct 7-loop convolution, NCHW, groups: the definition the im2col path must reproduce.
void naive_forward(const ConvGeometry& g, const std::vector<float>& x, const std::vector<float>& w,
                   std::vector<double>& y) {
  const auto& s = g.shape;
  int cg = s.in_channels / s.groups, kg = s.out_channels / s.groups, oh = g.out_h(), ow = g.out_w();
  y.assign(g.output_elements(), 0.0);
  for (int n = 0; n < g.batch; ++n)
    for (int k = 0; k < s.out_channels; ++k)
      for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox) {
          double sum = 0;
          int grp = k / kg;
          for (int c = 0; c < cg; ++c)
            for (int r = 0; r < s.kernel_h; ++r)
              for (int q = 0; q < s.kernel_w; ++q) {
                int iy = oy * s.stride - s.pad + r, ix = ox * s.stride - s.pad + q;
                if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) continue;
                int ic = grp * cg + c;
                sum += x[((static_cast<size_t>(n) * s.in_channels + ic) * s.in_h + iy) * s.in_w + ix] *
                       w[((static_cast<size_t>(k) * cg + c) * s.kernel_h + r) * s.kernel_w + q];
              }
          y[((static_cast<size_t>(n) * s.out_channels + k) * oh + oy) * ow + ox] = sum;
        }
}

std::vector<float> pattern(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(((i * 37 + seed * 11) % 17) - 8) / 8.0f;
  return v;
}

double dot(const std::vector<float>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

const ConvGeometry kSmallConv{{4, 6, 7, 6, 3, 3, 2, 1, 2},
                              2};  // C4 K6 7x6 3x3 stride 2 pad 1 groups 2, batch 2

TEST(Im2colConv, ForwardMatchesDirectConvolution) {
  const ConvGeometry& g = kSmallConv;
  auto x = pattern(g.input_elements(), 1), w = pattern(g.weight_elements(), 2);
  std::vector<float> y(g.output_elements()), col(g.col_elements());
  conv2d_forward(g, x.data(), w.data(), y.data(), col.data());
  std::vector<double> expected;
  naive_forward(g, x, w, expected);
  EXPECT_EQ(g.out_h(), 4);  // (7 + 2 - 3) / 2 + 1
  EXPECT_EQ(g.out_w(), 3);  // (6 + 2 - 3) / 2 + 1
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], expected[i], 1e-4) << i;
}

// The backward passes are the adjoints of the forward map y = A(x, w):
// <dy, A(x, w)> = <dx, x> with dx = backward_data(dy, w), and = <dw, w> with dw = backward_filter(x, dy).
TEST(Im2colConv, BackwardPassesAreAdjointsOfForward) {
  const ConvGeometry& g = kSmallConv;
  auto x = pattern(g.input_elements(), 3), w = pattern(g.weight_elements(), 4),
       dy = pattern(g.output_elements(), 5);
  std::vector<double> y;
  naive_forward(g, x, w, y);
  double lhs = dot(dy, y);
  std::vector<float> dx(g.input_elements()), dw(g.weight_elements()), col(g.col_elements());
  conv2d_backward_data(g, dy.data(), w.data(), dx.data(), col.data());
  conv2d_backward_filter(g, x.data(), dy.data(), dw.data(), col.data());
  std::vector<double> xd(x.begin(), x.end()), wd(w.begin(), w.end());
  EXPECT_NEAR(dot(dx, xd), lhs, 1e-3 * std::abs(lhs) + 1e-3);
  EXPECT_NEAR(dot(dw, wd), lhs, 1e-3 * std::abs(lhs) + 1e-3);
}

TEST(Im2colConv, FlopsAreTheClosedForm) {
  // ResNet-50 conv1: 3->64, 7x7, stride 2, pad 3 on 224x224: 112x112 output, 118,013,952 MACs.
  ConvGeometry g{{3, 64, 224, 224, 7, 7, 2, 3, 1}, 1};
  EXPECT_EQ(g.out_h(), 112);
  EXPECT_DOUBLE_EQ(g.flops(), 2.0 * 118013952);
}

TEST(Im2colConv, BadGeometryIsRejected) {
  EXPECT_THROW(check_geometry({{3, 64, 8, 8, 3, 3, 1, 1, 2}, 1}), std::invalid_argument);  // 3 % 2 != 0
  EXPECT_THROW(check_geometry({{4, 4, 2, 2, 5, 5, 1, 0, 1}, 1}), std::invalid_argument);   // empty output
}

// Doubling m, n and k multiplies the work by 8: a BLAS that is neither broken nor faking must take
// between 3x (better cache / thread use at the larger size) and 16x (falling out of cache) as long.
// The fastest repetition is compared: on a shared machine it is the one least disturbed by others.
TEST(CpuSuite, SgemmTimeScalesWithTheCubeOfTheSize) {
  // One BLAS thread: with ctest -j2 on two cores, a second thread competes with the other test
  // process and the small sizes (sub-millisecond) lose whole scheduler slices. The best of many
  // repetitions is what the hardware can do.
  openblas_set_num_threads(1);
  double previous_s = 0;
  for (int size : {256, 512, 1024}) {
    Measurement m = measure_sgemm(size, size, size, 2, size <= 512 ? 31 : 9, "t");
    EXPECT_DOUBLE_EQ(m.flops, 2.0 * size * size * size);
    EXPECT_GT(m.stats.min_s, 0);
    if (previous_s > 0) {
      double ratio = m.stats.min_s / previous_s;
      EXPECT_GE(ratio, 3.0) << size;
      EXPECT_LE(ratio, 16.0) << size;
    }
    previous_s = m.stats.min_s;
  }
}

TEST(CpuSuite, TriadMovesTwentyFourBytesPerElement) {
  // a[i] = b[i] + s * c[i] over 2^20 doubles: two reads and one write of 8 B per element.
  Measurement m = measure_triad(1 << 20, 1, 5);
  EXPECT_DOUBLE_EQ(m.bytes, 24.0 * (1 << 20));
  EXPECT_EQ(m.stats.reps, 5);
  EXPECT_DOUBLE_EQ(m.bandwidth_Bps(), 24.0 * (1 << 20) / m.stats.median_s);  // bytes over the median time
}

TEST(Stats, SummaryOfHandPickedTimes) {
  // Sorted 1, 2, 3, 5: median (2 + 3) / 2; mean 2.75; squared deviations 3.0625 + 0.5625 +
  // 0.0625 + 5.0625 = 8.75 over n - 1 = 3.
  const Stats s = summarize({3, 1, 2, 5});
  EXPECT_EQ(s.reps, 4);
  EXPECT_DOUBLE_EQ(s.median_s, 2.5);
  EXPECT_DOUBLE_EQ(s.min_s, 1);
  EXPECT_DOUBLE_EQ(s.max_s, 5);
  EXPECT_DOUBLE_EQ(s.stddev_s, std::sqrt(8.75 / 3));
  EXPECT_DOUBLE_EQ(summarize({4, 1, 7}).median_s, 4);  // odd count: the middle one
  EXPECT_DOUBLE_EQ(summarize({4}).stddev_s, 0);        // one repetition has no spread
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(CpuSuite, QuickSuiteGivesPositiveSelfConsistentNumbers) {
  SuiteOptions options = default_suite_options(true);
  options.shapes = workload_shapes(true);
  options.helper_dir = DASIM_BIN_DIR;
  auto start = std::chrono::steady_clock::now();
  SuiteResult result = run_cpu_suite(options);
  double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed_s, 60.0);  // --quick is for ctest: seconds, with a wide margin for a loaded machine
  EXPECT_EQ(result.device.kind, "cpu");
  ASSERT_EQ(options.shapes.convs.size(), 3u);
  ASSERT_EQ(options.batches, std::vector<int>{1});
  const int batch = options.batches[0];
  EXPECT_EQ(result.per_shape.size(), 3 * options.shapes.convs.size() + options.shapes.gemms.size());
  // Every conv and GEMM is timed options.reps times at the suite's batch, and counts the FLOPs of
  // its shape's closed form (2 x M x N x K for a GEMM of batch x rows_per_sample rows).
  int convs = 0, gemms = 0;
  for (const auto& m : result.measurements) {
    if (m.kind.rfind("conv_", 0) == 0) {
      ++convs;
      ConvGeometry g{};
      for (const auto& s : options.shapes.convs)
        if (m.params["key"] == workload::conv_shape_key(s)) g = {s, batch};
      EXPECT_DOUBLE_EQ(m.flops, g.flops()) << m.name;
      EXPECT_EQ(m.kernel_class, conv_kernel_class(g.shape, m.kind)) << m.name;
      EXPECT_EQ(m.stats.reps, options.reps) << m.name;
    }
    if (m.kind == "gemm" && m.params.contains("key")) {
      ++gemms;
      bool matched = false;
      for (const auto& s : options.shapes.gemms)
        if (m.params["key"] == workload::gemm_shape_key(s)) {
          matched = true;
          EXPECT_DOUBLE_EQ(m.flops, 2.0 * double(s.rows_per_sample * batch) * double(s.n) * double(s.k))
              << m.name;
        }
      EXPECT_TRUE(matched) << m.name;
      EXPECT_EQ(m.stats.reps, options.reps) << m.name;
    }
  }
  EXPECT_EQ(convs, 3 * static_cast<int>(options.shapes.convs.size()));
  EXPECT_EQ(gemms, static_cast<int>(options.shapes.gemms.size()));
  // With mpirun present, the allreduce sweep ran and was fitted (8 B .. 64 KiB: 14 sizes).
  if (std::system("command -v mpirun >/dev/null 2>&1") == 0) {
    int allreduces = 0;
    for (const auto& m : result.measurements) allreduces += m.kind == "allreduce";
    EXPECT_EQ(allreduces, 14);
    ASSERT_TRUE(result.links.contains("mpi_allreduce_local"));
    EXPECT_GT(result.links["mpi_allreduce_local"]["link"]["latency"].get<double>(), 0);
    EXPECT_GT(result.links["mpi_allreduce_local"]["link"]["bandwidth"].get<double>(), 0);
  }
  // Each per-shape time is the median of the matching measurement.
  for (const auto& s : result.per_shape) {
    bool found = false;
    for (const auto& m : result.measurements)
      if (m.kind == s.kind && m.params.value("key", "") == s.key) found = m.stats.median_s == s.time_s;
    EXPECT_TRUE(found) << s.kind << " " << s.key;
  }
}

Measurement fake(const std::string& kind, double flops, double bytes, double median_s) {
  Measurement m;
  m.name = kind;
  m.kind = kind;
  m.flops = flops;
  m.bytes = bytes;
  m.stats = {3, median_s, median_s, median_s, 0};
  return m;
}

TEST(FitCalibration, PeakEfficiencyBandwidthAndLaunchFromMeasurements) {
  std::vector<Measurement> ms = {fake("gemm", 2e9, 0, 0.02),      // 100 GFLOP/s
                                 fake("gemm", 2e6, 0, 1e-4),      // 20 GFLOP/s
                                 fake("conv_fwd", 1e9, 0, 0.02),  // 50 GFLOP/s
                                 fake("triad", 0, 24e6, 1e-3),    // 24 GB/s
                                 fake("launch", 0, 0, 5e-8)};
  calibration::Fitted f = fit_calibration(ms);
  EXPECT_DOUBLE_EQ(f.flops.at("fp32"), 1e11);
  ASSERT_EQ(f.gemm_efficiency.size(), 2u);
  EXPECT_DOUBLE_EQ(f.gemm_efficiency[0].flops_per_call, 2e6);  // sorted by size
  EXPECT_DOUBLE_EQ(f.gemm_efficiency[0].fraction, 0.2);
  EXPECT_DOUBLE_EQ(f.gemm_efficiency[1].fraction, 1.0);
  ASSERT_EQ(f.conv_efficiency.size(), 1u);
  EXPECT_DOUBLE_EQ(f.conv_efficiency[0].fraction, 0.5);
  EXPECT_DOUBLE_EQ(f.memory_bandwidth_Bps, 24e9);
  EXPECT_DOUBLE_EQ(f.launch_overhead_s, 5e-8);
  EXPECT_THROW(fit_calibration({fake("triad", 0, 1, 1)}), RuntimeFailure);
}

TEST(FitCalibration, KernelsOfEqualFlopsBecomeOnePoint) {
  std::vector<Measurement> ms = {fake("gemm", 2e9, 0, 0.02), fake("gemm", 1e9, 0, 0.02),
                                 fake("gemm", 1e9, 0, 0.04), fake("triad", 0, 24e6, 1e-3),
                                 fake("launch", 0, 0, 5e-8)};
  calibration::Fitted f = fit_calibration(ms);
  ASSERT_EQ(f.gemm_efficiency.size(), 2u);
  EXPECT_DOUBLE_EQ(f.gemm_efficiency[0].fraction,
                   (0.5 + 0.25) / 2);  // 50 and 25 GFLOP/s of a 100 GFLOP/s peak
}

TEST(Calibrate, QuickCpuFileRoundTripsThroughTheLoader) {
  std::string out = (dasim::testing::scratch_dir("dasim_kernels_test") / "cpu.json").string();
  CalibrateRequest request;
  request.device = "cpu";
  request.quick = true;
  request.out = out;
  request.command_line = "dasim calibrate --device cpu --quick --out " + out;
  request.helper_dir = DASIM_BIN_DIR;
  calibration::Calibration written = run_calibration(request);
  calibration::Calibration loaded = calibration::load_calibration(out);
  EXPECT_TRUE(loaded.measured);
  EXPECT_EQ(loaded.device.kind, "cpu");
  EXPECT_EQ(loaded.command, request.command_line);
  EXPECT_DOUBLE_EQ(loaded.fitted.flops.at("fp32"), written.fitted.flops.at("fp32"));
  EXPECT_DOUBLE_EQ(loaded.fitted.memory_bandwidth_Bps, written.fitted.memory_bandwidth_Bps);
  EXPECT_EQ(loaded.per_shape.size(), written.per_shape.size());
  EXPECT_EQ(loaded.measurements.size(), written.measurements.size());
  for (const auto& p : loaded.fitted.gemm_efficiency) {
    EXPECT_GT(p.fraction, 0);
    EXPECT_LE(p.fraction, 1);
  }
  // The per-class curves of the fp32 rate: the conv classes of the three quick shapes, and a gemm
  // curve when some GEMM of the sweep is compute-bound on this machine. Whether one is depends on
  // the measured ridge flops / bandwidth: square 512 has 85 FLOP/B, above an ordinary CPU's ridge,
  // but under AddressSanitizer the instrumented triad runs slowly while OpenBLAS does not, and the
  // ridge can rise above every GEMM of the sweep (the fit then leaves the gemm curve out, rightly).
  ASSERT_EQ(loaded.fitted.efficiency_curves.count("fp32"), 1u);
  const auto& curves = loaded.fitted.efficiency_curves.at("fp32");
  EXPECT_FALSE(curves.empty());
  EXPECT_EQ(curves.size(), written.fitted.efficiency_curves.at("fp32").size());
  for (const auto& [kernel_class, curve] : curves) {
    EXPECT_FALSE(curve.empty()) << kernel_class;
    for (const auto& p : curve) EXPECT_LE(p.fraction, kernel_class == "gemm" ? 1.0 : 4.0) << kernel_class;
  }
  std::filesystem::remove(out);
}

TEST(Calibrate, UnknownDeviceIsAnInputError) {
  CalibrateRequest request;
  request.device = "tpu";
  request.out = "/nonexistent/x.json";
  EXPECT_THROW(run_calibration(request), InputError);
}

}  // namespace
}  // namespace dasim::kernels
