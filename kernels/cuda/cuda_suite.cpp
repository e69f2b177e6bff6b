// Entry of the CUDA suite: finds the device (or fails with one clear line), records what it is,
// and runs the parts in order of importance to the compute model.
#include "cuda/cuda_suite.hpp"

#include "cuda/cuda_common.hpp"

#ifdef DASIM_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef DASIM_HAVE_NCCL
#include <nccl.h>
#endif

namespace dasim::kernels {

namespace cuda {

Stats time_events(const std::function<void()>& fn, cudaStream_t stream, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) fn();
  check(cudaStreamSynchronize(stream), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times_s;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    fn();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times_s.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(times_s);
}

}  // namespace cuda

namespace {

DeviceInfo cuda_device_info(int device_count) {
  cudaDeviceProp prop{};
  cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  DeviceInfo info;
  info.kind = "cuda";
  info.name = device_count > 1 ? fmt::format("{} (x{})", prop.name, device_count) : prop.name;
  info.driver = fmt::format("CUDA driver {}.{}", driver / 1000, (driver % 1000) / 10);
  std::string toolkit = fmt::format("CUDA runtime {}.{}", runtime / 1000, (runtime % 1000) / 10);
#ifdef DASIM_HAVE_CUDNN
  toolkit += fmt::format(", cuDNN {}", cudnnGetVersion());
#endif
#ifdef DASIM_HAVE_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess) toolkit += fmt::format(", NCCL {}", nccl);
#endif
  info.toolkit = toolkit;
  info.cpu_model =
      fmt::format("sm_{}{}, {} SMs, {:.1f} GiB", prop.major, prop.minor, prop.multiProcessorCount,
                  static_cast<double>(prop.totalGlobalMem) / (1 << 30));
  return info;
}

}  // namespace

SuiteResult run_cuda_suite(const SuiteOptions& options) {
  int device_count = 0;
  cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess)
    throw RuntimeFailure(
        fmt::format("no CUDA device found: {}; use --device cpu", cudaGetErrorString(status)));
  if (device_count == 0)
    throw RuntimeFailure("no CUDA device found: cudaGetDeviceCount reported 0; use --device cpu");
  cuda::check(cudaSetDevice(0), "cudaSetDevice(0)");
  SuiteResult result;
  result.device = cuda_device_info(device_count);
  options.say(
      fmt::format("device: {} ({}; {})", result.device.name, result.device.driver, result.device.toolkit));
  cuda::run_gemm_benchmarks(options, result);
#ifdef DASIM_HAVE_CUDNN
  cuda::run_conv_benchmarks(options, result);
#else
  result.notes.push_back("conv benchmarks skipped: dasim was built without cuDNN");
#endif
  cuda::run_bandwidth_kernels(options, result);
  cuda::run_memory_benchmarks(options, device_count, result);
#ifdef DASIM_HAVE_NCCL
  cuda::run_nccl_benchmarks(options, device_count, result);
#else
  result.notes.push_back("NCCL allreduce skipped: dasim was built without NCCL");
#endif
  return result;
}

}  // namespace dasim::kernels
