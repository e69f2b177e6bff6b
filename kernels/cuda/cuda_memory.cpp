// cudaMemcpy bandwidth: host-to-device and device-to-host from pinned and from pageable host
// memory, device-to-device, and peer-to-peer between every ordered GPU pair when there are
// several. Bandwidth = bytes copied / time (a D2D copy reads and writes, so it moves twice that).
#include "cuda/cuda_common.hpp"
#include "cuda/cuda_suite.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace dasim::kernels::cuda {
namespace {

Measurement copy_measurement(const std::string& name, const std::string& direction,
                             const std::string& host_memory, size_t bytes, Stats stats) {
  Measurement m;
  m.name = name;
  m.kind = "memcpy";
  m.params = {{"direction", direction}, {"bytes", bytes}};
  if (!host_memory.empty()) m.params["host_memory"] = host_memory;
  m.bytes = static_cast<double>(bytes);
  m.stats = stats;
  return m;
}

// Host <-> device (pinned and pageable) and device <-> device copies at a few sizes.
void host_device_copies(const SuiteOptions& options, cudaStream_t stream, SuiteResult& result) {
  int reps = std::max(options.reps, options.quick ? 5 : 10);
  std::vector<size_t> sizes =
      options.quick ? std::vector<size_t>{size_t{1} << 20, size_t{1} << 24}
                    : std::vector<size_t>{size_t{1} << 16, size_t{1} << 20, size_t{1} << 24, size_t{1} << 28};
  size_t max_bytes = sizes.back();
  DeviceBuffer dev_a(max_bytes), dev_b(max_bytes);
  void* pinned = nullptr;
  check(cudaMallocHost(&pinned, max_bytes), "cudaMallocHost");
  std::unique_ptr<char[]> pageable(new char[max_bytes]);
  std::memset(pinned, 1, max_bytes);
  std::memset(pageable.get(), 1, max_bytes);
  for (size_t bytes : sizes) {
    options.say(fmt::format("cudaMemcpy {} bytes", bytes));
    auto timed = [&](void* dst, const void* src, cudaMemcpyKind kind) {
      return time_events([&] { check(cudaMemcpyAsync(dst, src, bytes, kind, stream), "cudaMemcpyAsync"); },
                         stream, options.warmup + 1, reps);
    };
    result.measurements.push_back(copy_measurement(fmt::format("memcpy_h2d_pinned_{}", bytes), "h2d",
                                                   "pinned", bytes,
                                                   timed(dev_a.get(), pinned, cudaMemcpyHostToDevice)));
    result.measurements.push_back(copy_measurement(fmt::format("memcpy_d2h_pinned_{}", bytes), "d2h",
                                                   "pinned", bytes,
                                                   timed(pinned, dev_a.get(), cudaMemcpyDeviceToHost)));
    result.measurements.push_back(
        copy_measurement(fmt::format("memcpy_h2d_pageable_{}", bytes), "h2d", "pageable", bytes,
                         timed(dev_a.get(), pageable.get(), cudaMemcpyHostToDevice)));
    result.measurements.push_back(
        copy_measurement(fmt::format("memcpy_d2h_pageable_{}", bytes), "d2h", "pageable", bytes,
                         timed(pageable.get(), dev_a.get(), cudaMemcpyDeviceToHost)));
    result.measurements.push_back(
        copy_measurement(fmt::format("memcpy_d2d_{}", bytes), "d2d", "", bytes,
                         timed(dev_b.get(), dev_a.get(), cudaMemcpyDeviceToDevice)));
  }
  cudaFreeHost(pinned);
}

// Every ordered pair of GPUs, with peer access when the pair allows it.
void peer_copies(const SuiteOptions& options, int device_count, SuiteResult& result) {
  const int reps = std::max(options.reps, options.quick ? 5 : 10);
  size_t bytes = options.quick ? (size_t{1} << 24) : (size_t{1} << 28);
  for (int src = 0; src < device_count; ++src)
    for (int dst = 0; dst < device_count; ++dst) {
      if (src == dst) continue;
      int can = 0;
      check(cudaDeviceCanAccessPeer(&can, dst, src), "cudaDeviceCanAccessPeer");
      options.say(fmt::format("peer copy GPU {} -> GPU {} ({} bytes, peer access {})", src, dst, bytes,
                              can ? "on" : "off"));
      check(cudaSetDevice(dst), "cudaSetDevice");
      if (can) {
        cudaError_t st = cudaDeviceEnablePeerAccess(src, 0);
        if (st != cudaErrorPeerAccessAlreadyEnabled) check(st, "cudaDeviceEnablePeerAccess");
        cudaGetLastError();
      }
      DeviceBuffer to(bytes);
      check(cudaSetDevice(src), "cudaSetDevice");
      DeviceBuffer from(bytes);
      // Stream and events must belong to the current device (the source).
      cudaStream_t peer_stream;
      check(cudaStreamCreate(&peer_stream), "cudaStreamCreate");
      Stats stats = time_events(
          [&] {
            check(cudaMemcpyPeerAsync(to.get(), dst, from.get(), src, bytes, peer_stream),
                  "cudaMemcpyPeerAsync");
          },
          peer_stream, options.warmup + 1, reps);
      cudaStreamDestroy(peer_stream);
      Measurement m = copy_measurement(fmt::format("memcpy_p2p_{}_to_{}", src, dst), "p2p", "", bytes, stats);
      m.params["src_device"] = src;
      m.params["dst_device"] = dst;
      m.params["peer_access"] = can != 0;
      result.measurements.push_back(std::move(m));
    }
  check(cudaSetDevice(0), "cudaSetDevice");
}

}  // namespace

void run_memory_benchmarks(const SuiteOptions& options, int device_count, SuiteResult& result) {
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  try {
    host_device_copies(options, stream, result);
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  cudaStreamDestroy(stream);
  if (device_count < 2)
    result.notes.push_back("peer-to-peer copies skipped: one GPU");
  else
    peer_copies(options, device_count, result);
}

}  // namespace dasim::kernels::cuda
