#include "cuda/gpu_backend.hpp"

#include "consistency.hpp"
#include "micro_batches.hpp"
#include "model_buckets.hpp"
#include "step_timing.hpp"

namespace dasim::executor {

using schedules::Payload;

GpuBackend::GpuBackend(const TrainOptions& options, GpuMlp& model, const Dataset& data, MPI_Comm comm,
                       ncclComm_t nccl, TrainOutput& out)
    : options_(options),
      model_(model),
      data_(data),
      comm_(comm),
      nccl_(nccl),
      out_(out),
      comm_stream_(make_stream()) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &ranks_);
  ModelBuckets plan = plan_model_buckets(model, options.schedule);
  out_.buckets = std::move(plan.buckets);
  bucket_ending_at_ = std::move(plan.ending_at_layer);
  fragments_ = plan_model_fragments(model, options.schedule);
  collectives_.resize(out_.buckets.size() + 1 + fragments_.size());
  for (auto& c : collectives_) {
    c.ready = make_event();
    c.done = make_event();
  }
  if (options.schedule.kind == schedules::ScheduleKind::dasgd) {
    snapshot_ = device_floats(model.param_count());
    snapshot_sum_ = device_floats(model.param_count());
  }
  if (!fragments_.empty()) {  // the outer weights start as every rank's initial weights
    const size_t bytes = size_t(model.param_count()) * sizeof(float);
    global_ = device_floats(model.param_count());
    momentum_ = device_floats(model.param_count());
    delta_ = device_floats(model.param_count());
    delta_sum_ = device_floats(model.param_count());
    cuda_check(
        cudaMemcpyAsync(global_.get(), model.weights(), bytes, cudaMemcpyDeviceToDevice, model.stream()),
        "cudaMemcpyAsync (outer weights)");
    cuda_check(cudaMemsetAsync(momentum_.get(), 0, bytes, model.stream()),
               "cudaMemsetAsync (outer momentum)");
    if (options.schedule.eager)
      for (int i = 0; i < 2; ++i) {
        eager_delta_[i] = device_floats(model.param_count());
        eager_sum_[i] = device_floats(model.param_count());
      }
  }
  loop_start_s_ = wall_now_s();
}

void GpuBackend::begin_step(long step) {
  step_start_s_ = wall_now_s();
  call_s_ = wait_s_ = 0;
  step_ = step;
}

void GpuBackend::poll() {
  const double t0 = wall_now_s();
  for (auto& c : collectives_) {
    if (!c.in_flight) continue;
    const cudaError_t rc = cudaEventQuery(c.done.get());
    if (rc == cudaSuccess) {
      c.in_flight = false;
      clock_.completed(wall_now_s());
    } else if (rc != cudaErrorNotReady) {
      cuda_check(rc, "cudaEventQuery");
    }
  }
  call_s_ += wall_now_s() - t0;
}

void GpuBackend::forward_backward(schedules::MicroBatch micro_batch,
                                  const schedules::BucketReady& bucket_ready) {
  fill_batch(data_, micro_batch_number(step_, micro_batch), options_.batch, x_, y_);
  const float loss = model_.forward_backward(x_.data(), y_.data(), options_.batch,
                                             backward_hooks(
                                                 bucket_ending_at_, [this] { poll(); }, bucket_ready),
                                             micro_batch.adds_to_gradients());
  loss_ = step_loss(loss_, loss, micro_batch);
}

GpuBackend::Collective GpuBackend::start(Payload payload) {
  Collective index = snapshot_index();
  const float* src = model_.weights();
  float* dst = model_.weights();
  int64_t count = model_.param_count();
  if (payload.kind == Payload::Kind::outer_gradient) {
    index = fragment_index(payload.bucket);
    const auto& f = fragments_[size_t(payload.bucket)];
    const bool eager = options_.schedule.eager;
    src = (eager ? eager_delta_[eager_round_ % 2] : delta_).get() + f.param_offset;
    dst = (eager ? eager_sum_[eager_round_ % 2] : delta_sum_).get() + f.param_offset;
    count = f.params;
  } else if (payload.kind == Payload::Kind::gradient_bucket) {
    index = size_t(payload.bucket);
    dst = model_.grads() + out_.buckets[index].param_offset;
    src = dst;
    count = out_.buckets[index].params;
  } else if (payload.kind == Payload::Kind::snapshot) {
    src = snapshot_.get();
    dst = snapshot_sum_.get();
  }
  InFlight& c = collectives_[index];
  const double t0 = wall_now_s();
  cuda_check(cudaEventRecord(c.ready.get(), model_.stream()), "cudaEventRecord");
  cuda_check(cudaStreamWaitEvent(comm_stream_.get(), c.ready.get(), 0), "cudaStreamWaitEvent");
  nccl_check(
      ncclAllReduce(src, dst, static_cast<size_t>(count), ncclFloat, ncclSum, nccl_, comm_stream_.get()),
      "ncclAllReduce");
  cuda_check(cudaEventRecord(c.done.get(), comm_stream_.get()), "cudaEventRecord");
  c.in_flight = true;
  clock_.started(t0);
  call_s_ += wall_now_s() - t0;
  return index;
}

void GpuBackend::wait(Collective index) {
  InFlight& c = collectives_[index];
  if (!c.in_flight) return;
  const char* what = index < snapshot_index()   ? "gradient bucket allreduce"
                     : index > snapshot_index() ? "outer gradient allreduce"
                     : options_.schedule.kind == schedules::ScheduleKind::dasgd
                         ? "dasgd snapshot allreduce"
                         : "local_sgd weight allreduce";
  // The host runs ahead of the GPU: finish the compute stream first (compute time), so that what
  // remains of a wait is communication the rank is exposed to.
  cuda_check(cudaStreamSynchronize(model_.stream()), "cudaStreamSynchronize (before a wait)");
  const double t0 = wall_now_s();
  {
    WatchdogGuard guard(what);
    cuda_check(cudaEventSynchronize(c.done.get()), what);
  }
  const double t1 = wall_now_s();
  c.in_flight = false;
  clock_.completed(t1);
  wait_s_ += t1 - t0;
}

void GpuBackend::axpy(float alpha, const float* x, float* y, int64_t count) {
  cublas_check(cublasSaxpy(model_.blas(), static_cast<int>(count), &alpha, x, 1, y, 1), "cublasSaxpy");
}

void GpuBackend::scal(float alpha, float* x, int64_t count) {
  cublas_check(cublasSscal(model_.blas(), static_cast<int>(count), &alpha, x, 1), "cublasSscal");
}

void GpuBackend::apply_gradients(bool averaged) {
  // The gradients are the sum over the micro-batches (and the ranks, averaged), as on the CPU.
  const int summed = (averaged ? ranks_ : 1) * options_.schedule.accumulation_steps;
  axpy(-options_.lr / static_cast<float>(summed), model_.grads(), model_.weights());
}

void GpuBackend::average_weights() {
  const float inverse = 1.0f / static_cast<float>(ranks_);
  cublas_check(
      cublasSscal(model_.blas(), static_cast<int>(model_.param_count()), &inverse, model_.weights(), 1),
      "cublasSscal");
}

void GpuBackend::take_snapshot() {
  cuda_check(cudaMemcpyAsync(snapshot_.get(), model_.weights(), model_.param_count() * sizeof(float),
                             cudaMemcpyDeviceToDevice, model_.stream()),
             "cudaMemcpyAsync (snapshot)");
}

void GpuBackend::apply_average() {
  axpy(-1.0f, snapshot_.get(), model_.weights());                                  // local progress w - s ...
  axpy(1.0f / static_cast<float>(ranks_), snapshot_sum_.get(), model_.weights());  // ... plus the average
}

void GpuBackend::outer_gradient(int fragment) {
  const auto& f = fragments_[size_t(fragment)];
  float* delta = (options_.schedule.eager ? eager_delta_[eager_round_ % 2] : delta_).get() + f.param_offset;
  cuda_check(cudaMemcpyAsync(delta, global_.get() + f.param_offset, size_t(f.params) * sizeof(float),
                             cudaMemcpyDeviceToDevice, model_.stream()),
             "cudaMemcpyAsync (outer gradient)");
  axpy(-1.0f, model_.weights() + f.param_offset, delta, f.params);  // delta = global - w
}

// The arithmetic of update_rules.hpp's outer_step, as BLAS level-1 calls on the fragment.
void GpuBackend::outer_step(int fragment) {
  const auto& f = fragments_[size_t(fragment)];
  const auto& outer = options_.schedule.outer;
  const float n = static_cast<float>(ranks_), lr = static_cast<float>(outer.lr),
              mu = static_cast<float>(outer.momentum), alpha = static_cast<float>(options_.schedule.alpha);
  if (options_.schedule.eager) {  // delta_sum_ <- own + (sum before - own before), as update_rules.hpp
    const long now = eager_round_ % 2, before = 1 - now;
    float* comb = delta_sum_.get() + f.param_offset;
    cuda_check(cudaMemcpyAsync(comb, eager_delta_[now].get() + f.param_offset,
                               size_t(f.params) * sizeof(float), cudaMemcpyDeviceToDevice, model_.stream()),
               "cudaMemcpyAsync (eager combination)");
    if (eager_round_ > 0) {
      axpy(1.0f, eager_sum_[before].get() + f.param_offset, comb, f.params);
      axpy(-1.0f, eager_delta_[before].get() + f.param_offset, comb, f.params);
    }
    ++eager_round_;
  }
  const float* sum = delta_sum_.get() + f.param_offset;
  float* global = global_.get() + f.param_offset;
  if (outer.optimizer == schedules::OuterOptimizer::nesterov) {
    float* m = momentum_.get() + f.param_offset;
    scal(mu, m, f.params);  // m <- mu m + D
    axpy(1.0f / n, sum, m, f.params);
    axpy(-lr / n, sum, global, f.params);  // global <- global - lr (D + mu m)
    axpy(-lr * mu, m, global, f.params);
  } else {
    axpy(-lr / n, sum, global, f.params);
  }
  float* w = model_.weights() + f.param_offset;  // w <- alpha w + (1 - alpha) global
  scal(alpha, w, f.params);
  axpy(1.0f - alpha, global, w, f.params);
}

void GpuBackend::end_step(long) {
  cuda_check(cudaStreamSynchronize(model_.stream()), "cudaStreamSynchronize (end of step)");
  step_end_s_ = wall_now_s();
  out_.steps.push_back(
      finish_step(loss_, {step_start_s_, step_end_s_, clock_.take(step_end_s_), wait_s_, call_s_}));
}

void GpuBackend::drained() {
  cuda_check(cudaStreamSynchronize(model_.stream()), "cudaStreamSynchronize (end-of-run drain)");
  out_.drain_s = wall_now_s() - step_end_s_;
}

void GpuBackend::step_done(long step) {
  if (options_.check_consistency) {
    check_weights_consistency(options_.schedule, step, options_.steps, model_.weights_to_host(), comm_,
                              ranks_);
    ++out_.consistency_checks;
  }
  report_progress(options_, rank_, step, out_.steps.back(), loop_start_s_);
}

}  // namespace dasim::executor
