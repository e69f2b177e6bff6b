// The suite's own device kernels: value fill, an elementwise axpy and the SGD-with-momentum
// weight update (both memory-bound: their achieved bandwidth is the memory figure the compute
// model uses for elementwise layers and the optimizer step), and an empty kernel whose
// back-to-back launch rate gives the per-kernel launch overhead.
#include "cuda/cuda_common.hpp"
#include "cuda/cuda_suite.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>

namespace dasim::kernels::cuda {
namespace {

__device__ float hash_value(size_t i) {
  unsigned x = static_cast<unsigned>(i * 2654435761u) ^ 0x9e3779b9u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return 0.01f + static_cast<float>(x & 0xffff) / 65536.0f * 0.1f;
}

template <typename T>
__global__ void fill_kernel(T* data, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[i] = static_cast<T>(hash_value(i));
}

__global__ void axpy_kernel(float a, const float* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// v = momentum * v + g; w = w - lr * v  (PyTorch SGD with momentum, no dampening)
__global__ void sgd_momentum_kernel(float* __restrict__ w, const float* __restrict__ g, float* __restrict__ v,
                                    float lr, float momentum, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float vi = momentum * v[i] + g[i];
    v[i] = vi;
    w[i] -= lr * vi;
  }
}

__global__ void empty_kernel() {}

// Spins one thread until `ns` nanoseconds of the GPU's global timer have passed (time_gpu).
__global__ void hold_kernel(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

int grid_for(size_t n) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  size_t blocks = (n + 255) / 256;
  return static_cast<int>(std::min<size_t>(blocks, static_cast<size_t>(sms) * 32));
}

}  // namespace

void fill_values(void* ptr, size_t elements, DType t) {
  int grid = grid_for(elements);
  if (t == DType::f32) fill_kernel<<<grid, 256>>>(static_cast<float*>(ptr), elements);
  if (t == DType::f16) fill_kernel<<<grid, 256>>>(static_cast<__half*>(ptr), elements);
  if (t == DType::bf16) fill_kernel<<<grid, 256>>>(static_cast<__nv_bfloat16*>(ptr), elements);
  check(cudaGetLastError(), "fill kernel launch");
  check(cudaDeviceSynchronize(), "fill kernel");
}

void hold_stream(cudaStream_t stream, double seconds) {
  hold_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(seconds * 1e9));
  check(cudaGetLastError(), "hold kernel launch");
}

namespace {

// Memory-bound passes at HBM scale: an axpy and the SGD momentum update.
void streaming_kernels(const SuiteOptions& options, cudaStream_t stream, int reps, SuiteResult& result) {
  size_t n = options.quick ? (size_t{1} << 22) : (size_t{1} << 26);  // 16 MiB / 256 MiB per array
  DeviceBuffer x(4 * n), y(4 * n), v(4 * n);
  fill_values(x.get(), n, DType::f32);
  fill_values(y.get(), n, DType::f32);
  int grid = grid_for(n);
  float* xf = static_cast<float*>(x.get());
  float* yf = static_cast<float*>(y.get());
  float* vf = static_cast<float*>(v.get());

  options.say(fmt::format("elementwise axpy, {} floats", n));
  Measurement axpy;
  axpy.name = fmt::format("elementwise_axpy_{}", n);
  axpy.kind = "elementwise";
  axpy.params = {{"elements", n}, {"bytes_per_element", 12}, {"op", "y = a*x + y"}};
  axpy.bytes = 12.0 * static_cast<double>(n);
  axpy.stats = time_events([&] { axpy_kernel<<<grid, 256, 0, stream>>>(1.0001f, xf, yf, n); }, stream,
                           options.warmup + 2, reps);
  result.measurements.push_back(axpy);

  options.say(fmt::format("SGD momentum update, {} parameters", n));
  Measurement sgd;
  sgd.name = fmt::format("sgd_update_{}", n);
  sgd.kind = "sgd_update";
  sgd.params = {{"elements", n}, {"bytes_per_element", 20}, {"op", "v = m*v + g; w -= lr*v"}};
  sgd.bytes = 20.0 * static_cast<double>(n);  // reads w, g, v; writes w, v
  sgd.stats = time_events([&] { sgd_momentum_kernel<<<grid, 256, 0, stream>>>(yf, xf, vf, 1e-3f, 0.9f, n); },
                          stream, options.warmup + 2, reps);
  result.measurements.push_back(sgd);
}

// Back-to-back empty launches (per launch) and launch + synchronize (what a dependent step sees).
void launch_overheads(cudaStream_t stream, int reps, SuiteResult& result) {
  const int launches = 1000;
  Measurement launch;
  launch.name = "launch_empty_kernel";
  launch.kind = "launch";
  launch.params = {{"launches_per_sample", launches},
                   {"note", "back-to-back launches on one stream, per launch"}};
  launch.stats = time_events(
      [&] {
        for (int i = 0; i < launches; ++i) empty_kernel<<<1, 1, 0, stream>>>();
      },
      stream, 1, reps);
  launch.stats.median_s /= launches;
  launch.stats.min_s /= launches;
  launch.stats.max_s /= launches;
  launch.stats.stddev_s /= launches;
  result.measurements.push_back(launch);

  // Launch plus synchronize, timed on the host: the latency a dependent step sees.
  Measurement sync;
  sync.name = "launch_sync_empty_kernel";
  sync.kind = "launch_sync";
  sync.params = {{"note", "one launch + cudaStreamSynchronize, host clock"}};
  std::vector<double> times_s;
  for (int r = 0; r < reps * 10; ++r) {
    auto start = std::chrono::steady_clock::now();
    empty_kernel<<<1, 1, 0, stream>>>();
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    times_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  sync.stats = summarize(times_s);
  result.measurements.push_back(sync);
}

}  // namespace

void run_bandwidth_kernels(const SuiteOptions& options, SuiteResult& result) {
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const int reps = std::max(options.reps, options.quick ? 5 : 20);
  streaming_kernels(options, stream, reps, result);
  options.say("empty kernel launches");
  launch_overheads(stream, reps, result);
  check(cudaGetLastError(), "bandwidth kernels");
  cudaStreamDestroy(stream);
}

}  // namespace dasim::kernels::cuda
