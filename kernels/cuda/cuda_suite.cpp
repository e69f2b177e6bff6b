// Entry of the CUDA suite: finds the device (or fails with one clear line), records what it is,
// and runs the parts in order of importance to the compute model: first what the fit needs (GEMMs,
// bandwidth and launch kernels), then the optional parts, each of which is skipped with a note
// when it fails or the time budget is spent, so a long run on a lent GPU still writes a file.
#include "cuda/cuda_suite.hpp"

#include "cuda/cuda_common.hpp"

#ifdef DASIM_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef DASIM_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <chrono>

namespace dasim::kernels {

namespace cuda {

bool supports_precision(int sm, const std::string& precision) {
  if (precision == "tf32" || precision == "bf16") return sm >= 80;
  return true;
}

namespace {

// The host's time to run `fn` (for work enqueued on a stream: its enqueue time).
double host_time_s(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A pair of CUDA events, destroyed with it (also when a check throws between two samples).
class EventPair {
 public:
  EventPair() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    if (cudaError_t status = cudaEventCreate(&stop_); status != cudaSuccess) {
      cudaEventDestroy(start_);
      check(status, "cudaEventCreate");
    }
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // The GPU time from before to after the work `fn` enqueues on `stream`; `*host_s`, when given,
  // receives the host's time to enqueue it.
  double time_s(const std::function<void()>& fn, cudaStream_t stream, double* host_s = nullptr) {
    check(cudaEventRecord(start_, stream), "cudaEventRecord");
    const double enqueue_s = host_time_s(fn);
    if (host_s) *host_s = enqueue_s;
    check(cudaEventRecord(stop_, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

Stats time_events(const std::function<void()>& fn, cudaStream_t stream, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) fn();
  check(cudaStreamSynchronize(stream), "warm-up");
  EventPair events;
  std::vector<double> times_s;
  for (int r = 0; r < reps; ++r) times_s.push_back(events.time_s(fn, stream));
  return summarize(times_s);
}

Stats time_gpu(const std::function<void()>& fn, cudaStream_t stream, int warmup, int reps) {
  // The last warm-up call's enqueue time is the steady one (the first calls build plans).
  double enqueue = 0;
  for (int i = 0; i < std::max(warmup, 1); ++i) enqueue = host_time_s(fn);
  check(cudaStreamSynchronize(stream), "warm-up");
  constexpr double kLongestHold_s = 0.02;
  double hold_s = std::clamp(3 * enqueue + 20e-6, 20e-6, kLongestHold_s);
  EventPair events;
  std::vector<double> times_s;
  while (static_cast<int>(times_s.size()) < reps) {
    hold_stream(stream, hold_s);
    double took = 0;
    const double sample_s = events.time_s(fn, stream, &took);
    // The host outran the hold, so the sample may hold host time: hold longer and measure it
    // again. Past the longest hold (a call whose enqueue takes over 20 ms) the sample is kept.
    if (took > hold_s && hold_s < kLongestHold_s) {
      hold_s = std::min(2 * took, kLongestHold_s);
      continue;
    }
    times_s.push_back(sample_s);
  }
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

namespace {

// Runs an optional part: skipped with a note when the time budget is spent, and a failure becomes
// a note (the error state is cleared so the next part starts clean).
void optional_part(const char* what, const SuiteOptions& options, SuiteResult& result,
                   const std::function<void()>& part) {
  if (options.over_budget()) {
    result.notes.push_back(fmt::format("{} skipped: time budget of {} s spent", what, options.time_budget_s));
    options.say(result.notes.back());
    return;
  }
  try {
    part();
  } catch (const RuntimeFailure& e) {
    cudaGetLastError();
    cudaSetDevice(0);
    result.notes.push_back(fmt::format("{} stopped: {}", what, e.what()));
    options.say(result.notes.back());
  }
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
  cudaDeviceProp prop{};
  cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const cuda::DeviceCaps caps{prop.major * 10 + prop.minor, device_count};
  options.say(
      fmt::format("device: {} ({}; {})", result.device.name, result.device.driver, result.device.toolkit));
  // What the fit needs: fitted.flops, memory bandwidth, launch overhead.
  cuda::run_gemm_benchmarks(options, caps, result);
  cuda::run_bandwidth_kernels(options, result);
#ifdef DASIM_HAVE_CUDNN
  optional_part("cuDNN convs", options, result, [&] { cuda::run_conv_benchmarks(options, caps, result); });
  optional_part("BN + ReLU", options, result, [&] { cuda::run_bn_relu_benchmarks(options, result); });
#else
  result.notes.push_back("conv and BN + ReLU benchmarks skipped: dasim was built without cuDNN");
#endif
#ifdef DASIM_HAVE_NCCL
  optional_part("interference", options, result,
                [&] { cuda::run_interference_benchmark(options, caps, result); });
#else
  result.notes.push_back("interference benchmark skipped: dasim was built without NCCL");
#endif
  optional_part("copies", options, result,
                [&] { cuda::run_memory_benchmarks(options, device_count, result); });
#ifdef DASIM_HAVE_NCCL
  optional_part("NCCL allreduce sweep", options, result,
                [&] { cuda::run_nccl_benchmarks(options, device_count, result); });
#else
  result.notes.push_back("NCCL allreduce skipped: dasim was built without NCCL");
#endif
  options.say(fmt::format("suite done in {:.0f} s", options.elapsed_s()));
  return result;
}

}  // namespace dasim::kernels
