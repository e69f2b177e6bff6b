// NCCL allreduce (float, sum) across all local GPUs from one process (ncclCommInitAll), over a
// message-size sweep, timed on the host from the grouped launch to the last stream's completion.
// The times are fitted to alpha-beta exactly as `dasim fit-links` fits an nccl-tests log, with
// the nccl-tests bus factor 2(n-1)/n. Skipped with a note on a single GPU.
#ifdef DASIM_HAVE_NCCL
#include "cuda/cuda_common.hpp"
#include "cuda/cuda_nccl_check.hpp"
#include "cuda/cuda_suite.hpp"
#include "linkfit/alpha_beta_fit.hpp"

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace dasim::kernels::cuda {
namespace {

// One ncclAllReduce of `bytes` across every GPU of the machine (one communicator per GPU, in a
// group), timed on the host until every stream has finished.
Measurement time_allreduce(const std::vector<ncclComm_t>& comms,
                           const std::vector<std::unique_ptr<DeviceBuffer>>& send,
                           const std::vector<std::unique_ptr<DeviceBuffer>>& recv,
                           const std::vector<cudaStream_t>& streams, size_t bytes, int warmup, int reps) {
  const int n = static_cast<int>(comms.size());
  const size_t count = bytes / 4;
  auto once = [&] {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int i = 0; i < n; ++i)
      check_nccl(
          ncclAllReduce(send[i]->get(), recv[i]->get(), count, ncclFloat, ncclSum, comms[i], streams[i]),
          "ncclAllReduce");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    for (int i = 0; i < n; ++i) {
      check(cudaSetDevice(i), "cudaSetDevice");
      check(cudaStreamSynchronize(streams[i]), "cudaStreamSynchronize");
    }
  };
  Measurement m;
  m.name = fmt::format("nccl_allreduce_{}", bytes);
  m.kind = "allreduce";
  m.params = {{"bytes", bytes}, {"ranks", n}, {"op", "ncclSum"}, {"type", "ncclFloat"}, {"library", "NCCL"}};
  m.bytes = static_cast<double>(bytes);
  m.stats = time_repeated(once, warmup, reps);
  return m;
}

}  // namespace

void run_nccl_benchmarks(const SuiteOptions& options, int device_count, SuiteResult& result) {
  if (device_count < 2) {
    result.notes.push_back("NCCL allreduce skipped: one GPU");
    return;
  }
  const int n = device_count;
  std::vector<ncclComm_t> comms(n);
  std::vector<int> devices(n);
  for (int i = 0; i < n; ++i) devices[i] = i;
  check_nccl(ncclCommInitAll(comms.data(), n, devices.data()), "ncclCommInitAll");
  size_t max_bytes = options.quick ? (size_t{1} << 20) : (size_t{1} << 28);
  std::vector<std::unique_ptr<DeviceBuffer>> send, recv;
  std::vector<cudaStream_t> streams(n);
  for (int i = 0; i < n; ++i) {
    check(cudaSetDevice(i), "cudaSetDevice");
    send.push_back(std::make_unique<DeviceBuffer>(max_bytes));
    recv.push_back(std::make_unique<DeviceBuffer>(max_bytes));
    check(cudaStreamCreate(&streams[i]), "cudaStreamCreate");
  }
  int reps = std::max(options.reps, options.quick ? 5 : 20);
  linkfit::ParsedLog log;
  log.format = "nccl-allreduce";
  log.bus_factor = 2.0 * (n - 1) / n;
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
    result.measurements.push_back(
        time_allreduce(comms, send, recv, streams, bytes, options.warmup + 2, reps));
    log.samples.push_back({static_cast<double>(bytes), result.measurements.back().stats.median_s, 0, {}});
  }
  for (int i = 0; i < n; ++i) {
    ncclCommDestroy(comms[i]);
    cudaStreamDestroy(streams[i]);
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  nlohmann::json report = linkfit::fit_links_report(log, "nccl allreduce sweep", {});
  report["ranks"] = n;
  report.erase("log");
  result.links["nccl_allreduce_local"] = report;
  options.say(fmt::format("NCCL allreduce x{}: alpha {:.3g} s, bus bandwidth {:.4g} B/s", n,
                          report["link"]["latency"].get<double>(),
                          report["link"]["bandwidth"].get<double>()));
}

}  // namespace dasim::kernels::cuda
#endif  // DASIM_HAVE_NCCL
