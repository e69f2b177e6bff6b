// CPU microbenchmarks (see cpu_suite.hpp). Inputs are filled with small deterministic values so no
// denormals slow the BLAS down and runs are repeatable.
#include "cpu_suite.hpp"

#include "efficiency_fit.hpp"
#include "im2col_conv.hpp"
#include "mpi_allreduce.hpp"
#include "workload/shape_key.hpp"

#include <cblas.h>
#include <fmt/format.h>
#include <sys/utsname.h>

#include <algorithm>
#include <fstream>
#include <thread>

namespace dasim::kernels {
namespace {

std::vector<float> filled(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7 + 3) % 13) / 13.0f;
  return v;
}

}  // namespace

Measurement measure_sgemm(int m, int n, int k, int warmup, int reps, const std::string& name) {
  std::vector<float> a = filled(static_cast<size_t>(m) * k, 0.5f),
                     b = filled(static_cast<size_t>(k) * n, 0.25f);
  std::vector<float> c(static_cast<size_t>(m) * n, 0.0f);
  Measurement out;
  out.name = name;
  out.kind = "gemm";
  out.params = {{"m", m}, {"n", n}, {"k", k}, {"library", "cblas_sgemm"}};
  out.flops = 2.0 * m * n * k;
  out.kernel_class = "gemm";
  out.stats = time_repeated(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                    c.data(), n);
      },
      warmup, reps);
  return out;
}

Measurement measure_triad(size_t elements, int warmup, int reps) {
  // a[i] = b[i] + s * c[i] on doubles, split over all hardware threads (BLAS uses them all too).
  std::vector<double> a(elements, 0.0), b(elements, 1.0), c(elements, 2.0);
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  auto triad = [&] {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        size_t begin = elements * t / threads, end = elements * (t + 1) / threads;
        for (size_t i = begin; i < end; ++i) a[i] = b[i] + 3.0 * c[i];
      });
    for (auto& th : pool) th.join();
  };
  Measurement out;
  out.name = fmt::format("triad_{}", elements);
  out.kind = "triad";
  out.precision = "fp64";
  out.params = {{"elements", elements}, {"threads", threads}, {"bytes_per_element", 24}};
  out.bytes = 24.0 * static_cast<double>(elements);  // STREAM counts 2 reads + 1 write of 8 bytes
  out.stats = time_repeated(triad, warmup, reps);
  return out;
}

Measurement measure_call_overhead(int reps) {
  // A 1x1x1 sgemm: all library entry, argument checking and dispatch, no arithmetic to speak of.
  float a = 1.0f, b = 2.0f, c = 0.0f;
  Measurement out;
  out.name = "launch_sgemm_1x1x1";
  out.kind = "launch";
  out.params = {{"m", 1}, {"n", 1}, {"k", 1}, {"calls_per_sample", 1000}};
  out.stats = time_batched(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
      },
      100, reps, 1000);
  return out;
}

DeviceInfo cpu_device_info() {
  DeviceInfo info;
  info.kind = "cpu";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      info.cpu_model = line.substr(line.find(':') + 2);
      break;
    }
  if (info.cpu_model.empty()) info.cpu_model = "unknown CPU";
  info.name = fmt::format("{} ({} threads)", info.cpu_model, std::thread::hardware_concurrency());
  utsname uts{};
  if (uname(&uts) == 0) info.driver = fmt::format("{} {}", uts.sysname, uts.release);
  info.toolkit = openblas_get_config();  // "OpenBLAS 0.3.21 ... <core>": version and kernel set
  return info;
}

namespace {

void run_conv_shapes(const SuiteOptions& options, int batch, SuiteResult& result) {
  for (const auto& shape : options.shapes.convs) {
    ConvGeometry g{shape, batch};
    check_geometry(g);
    std::string key = workload::conv_shape_key(shape);
    options.say(fmt::format("conv {} batch {}", key, g.batch));
    std::vector<float> x = filled(g.input_elements(), 0.5f), w = filled(g.weight_elements(), 0.1f);
    std::vector<float> y(g.output_elements()), col(g.col_elements()), dx(g.input_elements()),
        dw(g.weight_elements());
    std::vector<float> dy = filled(g.output_elements(), 0.01f);
    struct Pass {
      const char* kind;
      std::function<void()> fn;
    };
    Pass passes[] = {
        {"conv_fwd", [&] { conv2d_forward(g, x.data(), w.data(), y.data(), col.data()); }},
        {"conv_bwd_data", [&] { conv2d_backward_data(g, dy.data(), w.data(), dx.data(), col.data()); }},
        {"conv_bwd_filter", [&] { conv2d_backward_filter(g, x.data(), dy.data(), dw.data(), col.data()); }}};
    for (const auto& pass : passes) {
      Measurement m;
      m.name = fmt::format("{}_{}_b{}", pass.kind, key, g.batch);
      m.kind = pass.kind;
      m.params = {{"key", key}, {"batch", g.batch}, {"algorithm", "im2col+cblas_sgemm"}};
      m.flops = g.flops();
      m.kernel_class = conv_kernel_class(shape, pass.kind);
      m.stats = time_repeated(pass.fn, options.warmup, options.reps);
      result.per_shape.push_back({pass.kind, key, g.batch, "fp32", m.stats.median_s});
      result.measurements.push_back(std::move(m));
    }
  }
}

void run_gemm_shapes(const SuiteOptions& options, int batch, SuiteResult& result) {
  for (const auto& shape : options.shapes.gemms) {
    std::string key = workload::gemm_shape_key(shape);
    int m = static_cast<int>(shape.rows_per_sample * batch);
    options.say(fmt::format("gemm {} batch {}", key, batch));
    Measurement meas = measure_sgemm(m, static_cast<int>(shape.n), static_cast<int>(shape.k), options.warmup,
                                     options.reps, fmt::format("sgemm_{}_b{}", key, batch));
    meas.params["key"] = key;
    meas.params["batch"] = batch;
    result.per_shape.push_back({"gemm", key, batch, "fp32", meas.stats.median_s});
    result.measurements.push_back(std::move(meas));
  }
}

}  // namespace

SuiteResult run_cpu_suite(const SuiteOptions& options) {
  SuiteResult result;
  result.device = cpu_device_info();
  options.say(fmt::format("device: {}", result.device.name));
  for (int size : options.square_gemm_sizes) {
    options.say(fmt::format("sgemm {}^3", size));
    result.measurements.push_back(
        measure_sgemm(size, size, size, options.warmup, options.reps, fmt::format("sgemm_square_{}", size)));
  }
  for (int batch : options.batches) run_gemm_shapes(options, batch, result);
  for (int batch : options.batches) run_conv_shapes(options, batch, result);
  size_t triad_elements = options.quick ? (size_t{1} << 21) : (size_t{1} << 24);  // 48 MiB / 384 MiB in total
  options.say(fmt::format("triad {} doubles", triad_elements));
  result.measurements.push_back(measure_triad(triad_elements, options.warmup, std::max(options.reps, 5)));
  options.say("call overhead (1x1x1 sgemm)");
  result.measurements.push_back(measure_call_overhead(std::max(options.reps, 5)));
  run_mpi_allreduce(options, result);
  return result;
}

}  // namespace dasim::kernels
