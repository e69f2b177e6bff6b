// cuBLAS GEMM sweeps in FP32, TF32, FP16 and BF16 (cublasGemmEx, FP32 accumulation): square sizes
// up to the asymptotic rate, then the GEMM shapes of the workloads at the scenario batch size.
#include "cuda/cuda_common.hpp"
#include "cuda/cuda_suite.hpp"
#include "workload/shape_key.hpp"

#include <algorithm>

namespace dasim::kernels::cuda {
namespace {

struct PrecisionSpec {
  const char* name;
  cudaDataType_t data;
  cublasComputeType_t compute;
  DType dtype;
};

const PrecisionSpec kPrecisions[] = {
    {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, DType::f32},
    {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, DType::f32},
    {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, DType::f16},
    {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, DType::bf16},
};

Measurement time_gemm(cublasHandle_t handle, cudaStream_t stream, const PrecisionSpec& p, int m, int n, int k,
                      int warmup, int reps, const std::string& name) {
  size_t elem = bytes_of(p.dtype);
  DeviceBuffer a(elem * m * k), b(elem * k * n), c(elem * m * n);
  fill_values(a.get(), static_cast<size_t>(m) * k, p.dtype);
  fill_values(b.get(), static_cast<size_t>(k) * n, p.dtype);
  const float alpha = 1.0f, beta = 0.0f;
  auto call = [&] {
    check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a.get(), p.data, m, b.get(), p.data,
                       k, &beta, c.get(), p.data, m, p.compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  };
  Measurement out;
  out.name = name;
  out.kind = "gemm";
  out.precision = p.name;
  out.params = {{"m", m}, {"n", n}, {"k", k}, {"library", "cublasGemmEx"}, {"accumulate", "fp32"}};
  out.flops = 2.0 * m * n * k;
  out.stats = time_events(call, stream, warmup, reps);
  return out;
}

}  // namespace

void run_gemm_benchmarks(const SuiteOptions& options, SuiteResult& result) {
  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  check(cublasSetStream(handle, stream), "cublasSetStream");
  // The GPU is fast: more repetitions cost little and steady the median.
  int reps = std::max(options.reps, options.quick ? 5 : 20);
  std::vector<int> sizes = options.quick ? std::vector<int>{256, 512, 1024}
                                         : std::vector<int>{256, 512, 1024, 2048, 4096, 8192, 16384};
  try {
    for (const auto& p : kPrecisions) {
      for (int size : sizes) {
        options.say(fmt::format("cuBLAS {} {}^3", p.name, size));
        result.measurements.push_back(time_gemm(handle, stream, p, size, size, size, options.warmup + 2, reps,
                                                fmt::format("gemm_{}_square_{}", p.name, size)));
      }
      for (const auto& shape : options.shapes.gemms) {
        std::string key = workload::gemm_shape_key(shape);
        int m = static_cast<int>(shape.rows_per_sample * options.batch);
        options.say(fmt::format("cuBLAS {} {} batch {}", p.name, key, options.batch));
        Measurement meas =
            time_gemm(handle, stream, p, m, static_cast<int>(shape.n), static_cast<int>(shape.k),
                      options.warmup + 2, reps, fmt::format("gemm_{}_{}_b{}", p.name, key, options.batch));
        meas.params["key"] = key;
        meas.params["batch"] = options.batch;
        result.per_shape.push_back({"gemm", key, options.batch, p.name, meas.stats.median_s});
        result.measurements.push_back(std::move(meas));
      }
    }
  } catch (...) {
    cublasDestroy(handle);
    cudaStreamDestroy(stream);
    throw;
  }
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
}

}  // namespace dasim::kernels::cuda
