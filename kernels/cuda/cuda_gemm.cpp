// cuBLAS GEMM sweeps in FP32, TF32, FP16 and BF16 (cublasGemmEx, FP32 accumulation): the squares
// and transformer-like shapes of gpu_gemm_sweep() (1.4e7 to 1.1e12 FLOPs: the large ones give
// fitted.flops, the compute-bound ones the gemm efficiency curve), then the GEMM shapes of the
// workloads at every batch of the run (per-shape times).
#include "cuda/cuda_gemm.hpp"

#include "cuda/cuda_suite.hpp"
#include "workload/shape_key.hpp"

#include <algorithm>

namespace dasim::kernels::cuda {

const std::vector<GemmPrecision>& gemm_precisions() {
  static const std::vector<GemmPrecision> precisions{
      {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, DType::f32},
      {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, DType::f32},
      {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, DType::f16},
      {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, DType::bf16},
  };
  return precisions;
}

const GemmPrecision& gemm_precision(const std::string& name) {
  for (const auto& p : gemm_precisions())
    if (name == p.name) return p;
  throw RuntimeFailure("cuBLAS: unknown precision " + name);
}

GemmOperands::GemmOperands(const GemmPrecision& precision, int m, int n, int k)
    : p_(precision),
      m_(m),
      n_(n),
      k_(k),
      a_(bytes_of(precision.dtype) * m * k),
      b_(bytes_of(precision.dtype) * k * n),
      c_(bytes_of(precision.dtype) * m * n) {
  fill_values(a_.get(), static_cast<size_t>(m) * k, p_.dtype);
  fill_values(b_.get(), static_cast<size_t>(k) * n, p_.dtype);
}

void GemmOperands::enqueue(cublasHandle_t handle) const {
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m_, n_, k_, &alpha, a_.get(), p_.data, m_, b_.get(),
                     p_.data, k_, &beta, c_.get(), p_.data, m_, p_.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

namespace {

Measurement time_gemm(cublasHandle_t handle, cudaStream_t stream, const GemmPrecision& p, int m, int n, int k,
                      int warmup, int reps, const std::string& name) {
  GemmOperands operands(p, m, n, k);
  Measurement out;
  out.name = name;
  out.kind = "gemm";
  out.kernel_class = "gemm";
  out.precision = p.name;
  out.params = {{"m", m}, {"n", n}, {"k", k}, {"library", "cublasGemmEx"}, {"accumulate", "fp32"}};
  out.flops = operands.flops();
  out.stats = time_gpu([&] { operands.enqueue(handle); }, stream, warmup, reps);
  return out;
}

// A cuBLAS handle on its own stream, released however the part ends.
struct CublasOnStream {
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  CublasOnStream() {
    check(cublasCreate(&handle), "cublasCreate");
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check(cublasSetStream(handle, stream), "cublasSetStream");
  }
  ~CublasOnStream() {
    if (handle) cublasDestroy(handle);
    if (stream) cudaStreamDestroy(stream);
  }
  CublasOnStream(const CublasOnStream&) = delete;
  CublasOnStream& operator=(const CublasOnStream&) = delete;
};

}  // namespace

void run_gemm_benchmarks(const SuiteOptions& options, const DeviceCaps& caps, SuiteResult& result) {
  CublasOnStream cublas;
  // The GPU is fast: more repetitions cost little and steady the median.
  const int reps = std::max(options.reps, options.quick ? 5 : 20);
  const int warmup = options.warmup + 2;
  const std::vector<GemmSize> sweep = gpu_gemm_sweep(options.quick);
  for (const auto& p : gemm_precisions()) {
    if (!supports_precision(caps.sm, p.name)) {
      result.notes.push_back(
          fmt::format("cuBLAS {} skipped: needs sm_80 or later, GPU 0 is sm_{}", p.name, caps.sm));
      continue;
    }
    for (const auto& g : sweep) {
      std::string family = g.family;
      std::string name = family == "square"
                             ? fmt::format("gemm_{}_square_{}", p.name, g.m)
                             : fmt::format("gemm_{}_{}_m{}_n{}_k{}", p.name, family, g.m, g.n, g.k);
      options.say(fmt::format("cuBLAS {} {} {}x{}x{}", p.name, family, g.m, g.n, g.k));
      Measurement m = time_gemm(cublas.handle, cublas.stream, p, g.m, g.n, g.k, warmup, reps, name);
      m.params["family"] = family;
      result.measurements.push_back(std::move(m));
    }
    for (int batch : options.batches)
      for (const auto& shape : options.shapes.gemms) {
        std::string key = workload::gemm_shape_key(shape);
        int m = static_cast<int>(shape.rows_per_sample * batch);
        options.say(fmt::format("cuBLAS {} {} batch {}", p.name, key, batch));
        Measurement meas = time_gemm(cublas.handle, cublas.stream, p, m, static_cast<int>(shape.n),
                                     static_cast<int>(shape.k), warmup, reps,
                                     fmt::format("gemm_{}_{}_b{}", p.name, key, batch));
        meas.params["key"] = key;
        meas.params["batch"] = batch;
        result.per_shape.push_back({"gemm", key, batch, p.name, meas.stats.median_s});
        result.measurements.push_back(std::move(meas));
      }
  }
}

}  // namespace dasim::kernels::cuda
