// The per-schedule step loop on CUDA + NCCL with its timing (see gpu_trainer.hpp).
#include "cuda/gpu_trainer.hpp"

#include "bucket_plan.hpp"
#include "comm.hpp"
#include "common/errors.hpp"
#include "consistency.hpp"
#include "cuda/gpu_mlp.hpp"
#include "step_timing.hpp"

#include <fmt/format.h>
#include <nccl.h>

namespace dasim::executor {
namespace {

void nccl_check(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) throw RuntimeFailure(fmt::format("{} failed: {}", what, ncclGetErrorString(rc)));
}

// Rank within the node, to pick this rank's GPU.
int local_rank(MPI_Comm comm) {
  MPI_Comm node;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

// One collective on the communication stream: `ready` gates it behind the compute stream's work,
// `done` tells when it has finished.
struct Collective {
  cudaEvent_t ready = nullptr, done = nullptr;
  bool in_flight = false;
};

}  // namespace

std::string cuda_device_problem() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(rc);
  if (count == 0) return "no CUDA device";
  return "";
}

TrainOutput train_gpu(const TrainOptions& options, const std::vector<int>& widths,
                      const std::vector<float>& initial_weights, const Dataset& data, MPI_Comm comm,
                      std::vector<float>& final_weights) {
  int rank = 0, ranks = 1, devices = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  cuda_check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  cuda_check(cudaSetDevice(local_rank(comm) % devices), "cudaSetDevice");

  ncclUniqueId id;
  if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  ncclComm_t nccl = nullptr;
  {
    WatchdogGuard guard("NCCL initialisation");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm), "MPI_Bcast (NCCL id)");
    nccl_check(ncclCommInitRank(&nccl, ranks, id, rank), "ncclCommInitRank");
  }

  const Schedule& sched = options.schedule;
  GpuMlp model(widths, initial_weights, options.batch);
  const int64_t params = model.param_count();
  TrainOutput out;
  std::vector<int64_t> layer_params;
  for (int l = 0; l < model.layers(); ++l) layer_params.push_back(model.layer_params(l));
  if (sched.kind == ScheduleKind::sgd) out.buckets = plan_buckets(layer_params, options.bucket_bytes);
  std::vector<int> bucket_ending_at(model.layers(), -1);
  for (size_t b = 0; b < out.buckets.size(); ++b)
    bucket_ending_at[out.buckets[b].first_layer] = static_cast<int>(b);

  cudaStream_t comm_stream = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking),
             "cudaStreamCreate (communication)");
  std::vector<Collective> collectives(out.buckets.size() + 1);  // last: weights / snapshot
  for (auto& c : collectives) {
    cuda_check(cudaEventCreateWithFlags(&c.ready, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&c.done, cudaEventDisableTiming), "cudaEventCreate");
  }
  Collective& whole = collectives.back();
  float* snapshot = nullptr;
  float* snapshot_sum = nullptr;
  if (sched.kind == ScheduleKind::dasgd) {
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&snapshot), params * sizeof(float)),
               "cudaMalloc (snapshot)");
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&snapshot_sum), params * sizeof(float)),
               "cudaMalloc (sum)");
  }
  InFlightClock clock;
  double call_s = 0, wait_s = 0;  // this step: inside enqueue/query calls, blocked in waits

  // Starts `count` floats of allreduce (src -> dst) once the compute stream has reached this point.
  auto start = [&](Collective& c, const float* src, float* dst, int64_t count) {
    const double t0 = wall_now_s();
    cuda_check(cudaEventRecord(c.ready, model.stream()), "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(comm_stream, c.ready, 0), "cudaStreamWaitEvent");
    nccl_check(ncclAllReduce(src, dst, static_cast<size_t>(count), ncclFloat, ncclSum, nccl, comm_stream),
               "ncclAllReduce");
    cuda_check(cudaEventRecord(c.done, comm_stream), "cudaEventRecord");
    c.in_flight = true;
    clock.started(t0);
    call_s += wall_now_s() - t0;
  };
  auto poll = [&] {
    const double t0 = wall_now_s();
    for (auto& c : collectives) {
      if (!c.in_flight) continue;
      const cudaError_t rc = cudaEventQuery(c.done);
      if (rc == cudaSuccess) {
        c.in_flight = false;
        clock.completed(wall_now_s());
      } else if (rc != cudaErrorNotReady) {
        cuda_check(rc, "cudaEventQuery");
      }
    }
    call_s += wall_now_s() - t0;
  };
  // The host runs ahead of the GPU: finish the compute stream first (compute time), so that what
  // remains of a wait is communication the rank is exposed to.
  auto wait = [&](Collective& c, const char* what) {
    if (!c.in_flight) return;
    cuda_check(cudaStreamSynchronize(model.stream()), "cudaStreamSynchronize (before a wait)");
    const double t0 = wall_now_s();
    {
      WatchdogGuard guard(what);
      cuda_check(cudaEventSynchronize(c.done), what);
    }
    const double t1 = wall_now_s();
    c.in_flight = false;
    clock.completed(t1);
    wait_s += t1 - t0;
  };
  auto axpy = [&](float alpha, const float* x, float* y) {
    cublas_check(cublasSaxpy(model.blas(), static_cast<int>(params), &alpha, x, 1, y, 1), "cublasSaxpy");
  };
  bool pending = false;
  long due = 0;
  auto merge = [&] {
    wait(whole, "dasgd snapshot allreduce");
    axpy(-1.0f, snapshot, model.weights());                                 // local progress w - s ...
    axpy(1.0f / static_cast<float>(ranks), snapshot_sum, model.weights());  // ... plus the average
    pending = false;
  };

  MlpHooks hooks;
  hooks.poll = poll;
  if (sched.kind == ScheduleKind::sgd)
    hooks.backward_done = [&](int layer) {
      const int b = bucket_ending_at[layer];
      if (b < 0) return;
      float* slice = model.grads() + out.buckets[b].offset;
      start(collectives[b], slice, slice, out.buckets[b].count);
    };
  std::vector<float> x;
  std::vector<int32_t> y;
  const double loop_start_s = wall_now_s();
  for (long k = 1; k <= options.steps; ++k) {
    const double t_start = wall_now_s();
    call_s = wait_s = 0;
    fill_batch(data, k - 1, options.batch, x, y);
    const float loss = model.forward_backward(x.data(), y.data(), options.batch, hooks);
    if (sched.kind == ScheduleKind::sgd) {
      for (size_t b = 0; b < out.buckets.size(); ++b) wait(collectives[b], "gradient bucket allreduce");
      axpy(-options.lr / static_cast<float>(ranks), model.grads(), model.weights());
    } else {
      axpy(-options.lr, model.grads(), model.weights());
      if (sched.kind == ScheduleKind::local_sgd && is_averaging_step(sched, k)) {
        start(whole, model.weights(), model.weights(), params);
        wait(whole, "local_sgd weight allreduce");
        const float inverse = 1.0f / static_cast<float>(ranks);
        cublas_check(cublasSscal(model.blas(), static_cast<int>(params), &inverse, model.weights(), 1),
                     "cublasSscal");
      }
      if (sched.kind == ScheduleKind::dasgd) {
        if (pending && k == due) merge();
        if (is_averaging_step(sched, k)) {
          cuda_check(cudaMemcpyAsync(snapshot, model.weights(), params * sizeof(float),
                                     cudaMemcpyDeviceToDevice, model.stream()),
                     "cudaMemcpyAsync (snapshot)");
          start(whole, snapshot, snapshot_sum, params);
          pending = true;
          due = k + sched.delay;
          if (sched.delay == 0) merge();
        }
      }
    }
    cuda_check(cudaStreamSynchronize(model.stream()), "cudaStreamSynchronize (end of step)");
    const double t_end = wall_now_s();
    const StepRecord rec = finish_step(loss, {t_start, t_end, clock.take(t_end), wait_s, call_s});
    out.steps.push_back(rec);
    if (pending && k == options.steps) {  // do not leave an average in flight at the end (not a step)
      merge();
      cuda_check(cudaStreamSynchronize(model.stream()), "cudaStreamSynchronize (end-of-run drain)");
      out.drain_s = wall_now_s() - t_end;
    }
    if (options.check_consistency) {
      check_weights_consistency(sched, k, options.steps, model.weights_to_host(), comm, ranks);
      ++out.consistency_checks;
    }
    report_progress(options, rank, k, rec, loop_start_s);
  }
  final_weights = model.weights_to_host();
  for (auto& c : collectives) {
    cudaEventDestroy(c.ready);
    cudaEventDestroy(c.done);
  }
  cudaFree(snapshot);
  cudaFree(snapshot_sum);
  cudaStreamDestroy(comm_stream);
  ncclCommDestroy(nccl);
  return out;
}

}  // namespace dasim::executor
