// Runs a calibration suite and turns its result into a "dasim-calibration/1" file.
#include "calibrate.hpp"

#include "common/errors.hpp"
#include "cpu_suite.hpp"
#include "fit_calibration.hpp"
#include "im2col_conv.hpp"
#include "workload/builtin_models.hpp"
#include "workload/fusion.hpp"
#include "workload/shape_key.hpp"
#ifdef DASIM_HAVE_CUDA_SUITE
#include "cuda/cuda_suite.hpp"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <tuple>

namespace dasim::kernels {

bool cuda_suite_built() {
#ifdef DASIM_HAVE_CUDA_SUITE
  return true;
#else
  return false;
#endif
}

namespace {

// ResNet-50 through the library's own BN + ReLU fusion: each merged "bn+relu" layer normalises the
// output of the conv before it.
std::vector<Activation> bn_relu_activations() {
  workload::Workload w = workload::resnet50(workload::Precision::fp32);
  workload::apply_fusion(w, workload::Fusion::bn_relu);
  std::vector<Activation> out;
  std::set<std::tuple<int, int, int>> seen;
  for (size_t i = 1; i < w.layers.size(); ++i) {
    const auto& layer = w.layers[i];
    const auto& before = w.layers[i - 1];
    if (layer.kind != workload::LayerKind::norm || layer.name.find('+') == std::string::npos || !before.conv)
      continue;
    ConvGeometry g{*before.conv, 1};
    Activation a{before.conv->out_channels, g.out_h(), g.out_w()};
    if (seen.insert({a.channels, a.h, a.w}).second) out.push_back(a);
  }
  return out;
}

}  // namespace

ShapeSet workload_shapes(bool quick) {
  ShapeSet shapes;
  std::set<std::string> seen_conv, seen_gemm;
  for (const auto& model :
       {workload::resnet50(workload::Precision::fp32), workload::vgg16(workload::Precision::fp32)})
    for (const auto& layer : model.layers) {
      if (layer.conv && seen_conv.insert(workload::conv_shape_key(*layer.conv)).second)
        shapes.convs.push_back(*layer.conv);
      if (layer.gemm && seen_gemm.insert(workload::gemm_shape_key(*layer.gemm)).second)
        shapes.gemms.push_back(*layer.gemm);
    }
  shapes.bn_relu = bn_relu_activations();
  if (quick) {
    std::stable_sort(shapes.bn_relu.begin(), shapes.bn_relu.end(),
                     [](const auto& a, const auto& b) { return a.elements() < b.elements(); });
    if (shapes.bn_relu.size() > 2) shapes.bn_relu.resize(2);
    // The three cheapest conv shapes keep --quick to seconds while still exercising strides,
    // padding and 1x1 / 3x3 / 7x7 kernels where they fall.
    auto cost = [](const workload::ConvShape& s) { return ConvGeometry{s, 1}.flops(); };
    std::stable_sort(shapes.convs.begin(), shapes.convs.end(),
                     [&](const auto& a, const auto& b) { return cost(a) < cost(b); });
    if (shapes.convs.size() > 3) shapes.convs.resize(3);
  }
  return shapes;
}

calibration::Calibration make_calibration(const SuiteResult& result, const std::string& command_line,
                                          const std::string& date) {
  calibration::Calibration c;
  c.device = {result.device.name, result.device.kind, result.device.driver, result.device.toolkit,
              result.device.cpu_model};
  c.date = date;
  c.command = command_line;
  c.measured = true;
  FitResult fit = fit_measurements(result.measurements);
  c.fitted = fit.fitted;
  for (const auto& s : result.per_shape)
    c.per_shape.push_back({s.kind, s.key, s.batch, s.precision, s.time_s});
  nlohmann::json measurements = nlohmann::json::array();
  for (const auto& m : result.measurements) measurements.push_back(to_json(m));
  for (const auto& [name, report] : result.links.items()) {
    nlohmann::json entry = report;
    entry["name"] = name + "_alpha_beta";
    entry["kind"] = "alpha_beta_fit";
    measurements.push_back(entry);
  }
  c.measurements = measurements;
  bool cpu = result.device.kind == "cpu";
  c.sources["fitted.flops"] =
      cpu ? "best median rate of the cblas_sgemm measurements (kind gemm)"
          : "best median rate of the cuBLAS GEMM measurements per precision (kind gemm)";
  c.sources["fitted.gemm_efficiency"] =
      "every fp32 gemm measurement: [FLOPs per call, rate / fitted.flops.fp32], capped at 1 (the generic "
      "curve; fitted.efficiency_curves has the per-class ones)";
  c.sources["fitted.conv_efficiency"] =
      cpu ? "every conv measurement (im2col + cblas_sgemm): [FLOPs per call, rate / fitted.flops.fp32], "
            "capped at 1"
          : "every fp32 (FMA math) cuDNN conv pass: [FLOPs per call, rate / fitted.flops.fp32], capped at 1";
  c.sources["fitted.memory_bandwidth_Bps"] =
      cpu ? "STREAM-like triad a = b + s*c on doubles, 24 bytes per element, all hardware threads"
          : "best of the elementwise and SGD-update kernels";
  c.sources["fitted.launch_overhead_s"] =
      cpu ? "median time of a 1x1x1 cblas_sgemm call"
          : "median time per launch of 1000 back-to-back empty kernels on one stream (kind launch)";
  for (const auto& [key, text] : fit.sources) c.sources[key] = text;
  if (!cpu)
    c.sources["per_shape"] =
        "median times of the cuDNN conv passes (conv_fwd, conv_bwd_data, conv_bwd_filter; the algorithm "
        "cuDNN's heuristics rank first with status success, cudnnGet*Algorithm_v7, as frameworks run "
        "without benchmark mode; fp16 and bf16 in NHWC) and the cuBLAS workload GEMMs, at every batch of the "
        "run";
  for (size_t i = 0; i < result.notes.size(); ++i) c.sources[fmt::format("note.{}", i + 1)] = result.notes[i];
  return c;
}

namespace {

std::string utc_now_iso8601() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace

calibration::Calibration run_calibration(const CalibrateRequest& request) {
  if (request.device != "cpu" && request.device != "cuda")
    throw InputError(fmt::format("--device must be cpu or cuda, got '{}'", request.device));
  SuiteOptions options = default_suite_options(request.quick, request.device);
  if (!request.batches.empty()) options.batches = request.batches;
  for (int batch : options.batches)
    if (batch < 1) throw InputError(fmt::format("--batches: expected positive batch sizes, got {}", batch));
  if (request.time_budget_s < 0)
    throw InputError(fmt::format("--time-budget: expected seconds >= 0, got {}", request.time_budget_s));
  options.time_budget_s = request.time_budget_s;
  options.start = std::chrono::steady_clock::now();
  options.progress = request.progress;
  options.helper_dir = request.helper_dir;
  options.shapes = workload_shapes(request.quick);
  SuiteResult result;
  if (request.device == "cuda") {
#ifdef DASIM_HAVE_CUDA_SUITE
    result = run_cuda_suite(options);
#else
    throw RuntimeFailure(
        "no CUDA device found: this dasim was built without the CUDA suite (no CUDA toolkit found, "
        "or DASIM_CUDA=OFF); use --device cpu");
#endif
  } else {
    result = run_cpu_suite(options);
  }
  calibration::Calibration c = make_calibration(result, request.command_line, utc_now_iso8601());
  calibration::save_calibration(c, request.out);
  return c;
}

}  // namespace dasim::kernels
