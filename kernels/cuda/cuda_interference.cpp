// Interference of a collective with compute on one GPU: a large GEMM (8192^3, fp16 tensor cores
// and fp32) timed alone, and again while NCCL allreduces (float sum, 256 MiB, out of place) run on
// another stream of the same GPU. With two or more GPUs the communicator spans GPUs 0 and 1
// (ncclCommInitAll), so the allreduce is the ring a data-parallel step runs; with one GPU it is a
// 1-rank communicator, whose allreduce is a device-local copy: it competes for memory bandwidth
// and SMs but sends nothing, so it understates what a multi-GPU collective takes.
//
//   comm stream  | ar | ar | ar | ar | ar | ar | ar | ... | ar |      (enough to outlast the GEMMs)
//   compute           wait(after 2nd ar) [start  R x GEMM  stop]
//
// Per sample the GEMMs wait for the second allreduce to finish (so the collective is running), and
// the sample counts as covered when the allreduces end after the GEMMs (`uncovered_samples` says
// how many did not). fitted.compute_slowdown_under_collective = with / alone - 1 of the fp16 pair
// (fit_calibration.hpp). Built only with NCCL (DASIM_HAVE_NCCL).
#ifdef DASIM_HAVE_NCCL
#include "cuda/cuda_common.hpp"
#include "cuda/cuda_gemm.hpp"
#include "cuda/cuda_nccl_check.hpp"
#include "cuda/cuda_suite.hpp"

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

namespace dasim::kernels::cuda {
namespace {

// A communicator over GPUs 0..ranks-1 with a send and a receive buffer and a stream on each,
// released however the benchmark ends.
struct Collective {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<std::unique_ptr<DeviceBuffer>> send, recv;
  size_t bytes;
  Collective(int ranks, size_t bytes_) : comms(ranks, nullptr), streams(ranks, nullptr), bytes(bytes_) {
    std::vector<int> devices(ranks);
    for (int i = 0; i < ranks; ++i) devices[i] = i;
    check_nccl(ncclCommInitAll(comms.data(), ranks, devices.data()), "ncclCommInitAll");
    for (int i = 0; i < ranks; ++i) {
      check(cudaSetDevice(i), "cudaSetDevice");
      send.push_back(std::make_unique<DeviceBuffer>(bytes));
      recv.push_back(std::make_unique<DeviceBuffer>(bytes));
      check(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking), "cudaStreamCreate");
    }
    check(cudaSetDevice(0), "cudaSetDevice");
  }
  ~Collective() {
    for (size_t i = 0; i < comms.size(); ++i) {
      if (comms[i]) ncclCommDestroy(comms[i]);
      if (streams[i]) cudaStreamDestroy(streams[i]);
    }
    cudaSetDevice(0);
  }
  Collective(const Collective&) = delete;
  Collective& operator=(const Collective&) = delete;
  int ranks() const { return static_cast<int>(comms.size()); }

  // One allreduce on every rank, enqueued (grouped) without waiting.
  void enqueue() const {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int i = 0; i < ranks(); ++i)
      check_nccl(
          ncclAllReduce(send[i]->get(), recv[i]->get(), bytes / 4, ncclFloat, ncclSum, comms[i], streams[i]),
          "ncclAllReduce");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    check(cudaSetDevice(0), "cudaSetDevice");
  }
  void synchronize() const {
    for (int i = 0; i < ranks(); ++i) {
      check(cudaSetDevice(i), "cudaSetDevice");
      check(cudaStreamSynchronize(streams[i]), "cudaStreamSynchronize");
    }
    check(cudaSetDevice(0), "cudaSetDevice");
  }
};

// cuBLAS on a non-blocking stream of GPU 0, with the events of one timed sample.
struct Compute {
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t lead = nullptr, start = nullptr, stop = nullptr, comm_end = nullptr;
  Compute() {
    check(cublasCreate(&handle), "cublasCreate");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublasSetStream(handle, stream), "cublasSetStream");
    for (cudaEvent_t* e : {&lead, &start, &stop, &comm_end}) check(cudaEventCreate(e), "cudaEventCreate");
  }
  ~Compute() {
    for (cudaEvent_t e : {lead, start, stop, comm_end})
      if (e) cudaEventDestroy(e);
    if (handle) cublasDestroy(handle);
    if (stream) cudaStreamDestroy(stream);
  }
  Compute(const Compute&) = delete;
  Compute& operator=(const Compute&) = delete;
};

double elapsed_s(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime");
  return ms * 1e-3;
}

Stats per_call(Stats s, int calls) {
  s.median_s /= calls;
  s.min_s /= calls;
  s.max_s /= calls;
  s.stddev_s /= calls;
  return s;
}

struct Timings {
  Stats alone, with, allreduce;
  int allreduces_per_sample = 0, uncovered = 0;
};

Timings measure(const Collective& coll, Compute& compute, const GemmOperands& gemm, int calls, int warmup,
                int reps) {
  auto gemms = [&] {
    for (int c = 0; c < calls; ++c) gemm.enqueue(compute.handle);
  };
  Timings t;
  t.alone = time_events(gemms, compute.stream, warmup, reps);
  // The allreduce alone, host-timed from the enqueue to the last stream's completion.
  for (int i = 0; i < warmup; ++i) coll.enqueue();
  coll.synchronize();
  std::vector<double> allreduce_s;
  for (int r = 0; r < reps; ++r) {
    auto begin = std::chrono::steady_clock::now();
    coll.enqueue();
    coll.synchronize();
    allreduce_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  t.allreduce = summarize(allreduce_s);
  // Enough allreduces to outlast the GEMMs by half again, plus the host's enqueue time.
  double needed_s = 1.5 * t.alone.median_s + 2e-3;
  t.allreduces_per_sample =
      std::clamp(static_cast<int>(std::ceil(needed_s / t.allreduce.median_s)) + 2, 4, 4000);
  std::vector<double> with_s;
  for (int r = 0; r < warmup + reps; ++r) {
    for (int i = 0; i < t.allreduces_per_sample; ++i) {
      coll.enqueue();
      if (i == 1) check(cudaEventRecord(compute.lead, coll.streams[0]), "cudaEventRecord");
    }
    check(cudaEventRecord(compute.comm_end, coll.streams[0]), "cudaEventRecord");
    check(cudaStreamWaitEvent(compute.stream, compute.lead, 0), "cudaStreamWaitEvent");
    check(cudaEventRecord(compute.start, compute.stream), "cudaEventRecord");
    gemms();
    check(cudaEventRecord(compute.stop, compute.stream), "cudaEventRecord");
    check(cudaStreamSynchronize(compute.stream), "cudaStreamSynchronize");
    coll.synchronize();
    if (r < warmup) continue;
    with_s.push_back(elapsed_s(compute.start, compute.stop));
    if (elapsed_s(compute.stop, compute.comm_end) <= 0) ++t.uncovered;
  }
  t.with = summarize(with_s);
  t.alone = per_call(t.alone, calls);
  t.with = per_call(t.with, calls);
  return t;
}

Measurement gemm_measurement(const char* kind, const GemmPrecision& p, int size, int calls, Stats stats) {
  Measurement m;
  m.name = fmt::format("{}_{}_{}", kind, p.name, size);
  m.kind = kind;
  m.precision = p.name;
  m.params = {{"m", size},
              {"n", size},
              {"k", size},
              {"library", "cublasGemmEx"},
              {"accumulate", "fp32"},
              {"calls_per_sample", calls},
              {"note", "per GEMM call"}};
  m.flops = 2.0 * size * size * size;
  m.stats = stats;
  return m;
}

}  // namespace

void run_interference_benchmark(const SuiteOptions& options, const DeviceCaps& caps, SuiteResult& result) {
  const int ranks = caps.device_count >= 2 ? 2 : 1;
  const size_t bytes = options.quick ? (size_t{1} << 24) : (size_t{1} << 28);
  const int size = options.quick ? 2048 : 8192;
  const int warmup = options.warmup + 1, reps = std::max(options.reps, options.quick ? 3 : 10);
  Collective coll(ranks, bytes);
  Compute compute;
  std::optional<Stats> allreduce_alone;
  for (const char* name : {"fp16", "fp32"}) {
    const GemmPrecision& p = gemm_precision(name);
    // About 30 ms of GEMMs per sample: 20 fp16 calls, 2 fp32 ones (8192^3 on an H100 / H200).
    const int calls = options.quick ? 2 : (p.dtype == DType::f32 ? 2 : 20);
    options.say(fmt::format("interference: {} GEMM {}^3 alone and under a {}-rank NCCL allreduce of {} B",
                            name, size, ranks, bytes));
    GemmOperands gemm(p, size, size, size);
    Timings t = measure(coll, compute, gemm, calls, warmup, reps);
    if (!allreduce_alone) allreduce_alone = t.allreduce;
    result.measurements.push_back(gemm_measurement("interference_gemm_alone", p, size, calls, t.alone));
    Measurement with = gemm_measurement("interference_gemm_with_allreduce", p, size, calls, t.with);
    with.params["allreduce_bytes"] = bytes;
    with.params["ranks"] = ranks;
    with.params["allreduces_per_sample"] = t.allreduces_per_sample;
    with.params["uncovered_samples"] = t.uncovered;
    with.params["slowdown"] = t.with.median_s / t.alone.median_s - 1;
    result.measurements.push_back(std::move(with));
    if (t.uncovered > 0)
      result.notes.push_back(
          fmt::format("interference {}: in {} of {} samples the allreduces ended before the GEMMs (the "
                      "slowdown is diluted)",
                      name, t.uncovered, reps));
  }
  Measurement ar;
  ar.name = fmt::format("interference_allreduce_alone_{}", bytes);
  ar.kind = "interference_allreduce_alone";
  ar.params = {
      {"bytes", bytes}, {"ranks", ranks}, {"op", "ncclSum"}, {"type", "ncclFloat"}, {"library", "NCCL"}};
  ar.bytes = static_cast<double>(bytes);
  ar.stats = *allreduce_alone;
  result.measurements.push_back(std::move(ar));
  if (ranks == 1)
    result.notes.push_back(
        "interference: one GPU, so a 1-rank NCCL communicator (its allreduce is a device-local copy, no "
        "transfer between GPUs): the slowdown understates a multi-GPU collective's");
}

}  // namespace dasim::kernels::cuda
#endif  // DASIM_HAVE_NCCL
