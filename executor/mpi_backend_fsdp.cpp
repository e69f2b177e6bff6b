// The MPI backend's fully sharded data parallelism (see mpi_backend.hpp), after PyTorch FSDP
// FULL_SHARD as the simulator's worker runs it (sim/workers/worker.cpp): a unit is one gradient
// bucket, so bucket 0 holds the last layers and forward meets the units from the last one down.
//   forward   before a unit's first layer: wait for its all-gather, start the next unit's (one
//             unit of prefetch); after its last layer, free it, except the unit forward ends with
//             (kept for backward)
//   backward  before a unit's last layer: wait for its all-gather (the kept unit needs none) and
//             start the next unit's (BACKWARD_PRE); once its gradient is complete, free it and
//             hand it to the schedule, which reduce-scatters it (start)
// "Free" fills the unit's weights with NaN: a unit used without its all-gather spoils the loss and
// the weights, which --verify and the tests catch.
#include "mpi_backend.hpp"

#include "model_buckets.hpp"

#include <limits>

namespace dasim::executor {

float MpiBackend::sharded_forward_backward(const schedules::BucketReady& bucket_ready) {
  const auto& units = out_.buckets;
  auto unit_of = [this](int layer) { return unit_of_layer_[size_t(layer)]; };
  auto gathered_in_time = [this](int unit) {
    start_gather(unit);  // nothing to do when prefetched
    wait(gather_request(unit));
  };
  MlpHooks hooks;
  hooks.poll = [this] { poll(); };
  hooks.forward_begin = [&](int layer) {
    const int u = unit_of(layer);
    if (size_t(layer) != units[size_t(u)].first_layer) return;
    gathered_in_time(u);
    if (u > 0) start_gather(u - 1);
  };
  hooks.forward_done = [&](int layer) {
    const int u = unit_of(layer);
    if (u > 0 && size_t(layer) == units[size_t(u)].last_layer) release_unit(u);  // unit 0 is kept
  };
  hooks.backward_begin = [&](int layer) {
    const int u = unit_of(layer);
    if (size_t(layer) != units[size_t(u)].last_layer) return;
    gathered_in_time(u);
    if (u + 1 < bucket_count()) start_gather(u + 1);
  };
  hooks.backward_done = [&](int layer) {
    const int u = unit_of(layer);
    if (size_t(layer) != units[size_t(u)].first_layer) return;
    release_unit(u);
    if (bucket_ready) bucket_ready(u);
  };
  return model_.forward_backward(x_.data(), y_.data(), options_.batch, hooks);
}

void MpiBackend::gather_unit(int unit, MPI_Request* request) {
  const auto& counts = shards_->counts(unit);
  mpi_check(MPI_Iallgatherv(shard_w_.data() + shards_->shard_offset(unit), counts[size_t(bucket_rank_)],
                            MPI_FLOAT, model_.weights().data() + out_.buckets[size_t(unit)].param_offset,
                            counts.data(), shards_->displs(unit).data(), MPI_FLOAT, bucket_comm_, request),
            "MPI_Iallgatherv (fsdp unit weights)");
}

void MpiBackend::start_gather(int unit) {
  if (unit_gathered_[size_t(unit)]) return;
  unit_gathered_[size_t(unit)] = true;
  const double t0 = wall_now_s();
  gather_unit(unit, &requests_[gather_request(unit)]);
  clock_.started(t0);
  call_s_ += wall_now_s() - t0;
}

void MpiBackend::release_unit(int unit) {
  unit_gathered_[size_t(unit)] = false;
  const auto& u = out_.buckets[size_t(unit)];
  std::fill_n(model_.weights().begin() + u.param_offset, u.params, std::numeric_limits<float>::quiet_NaN());
}

MpiBackend::Collective MpiBackend::start_reduce_scatter(int unit) {
  const Collective c = size_t(unit);
  mpi_check(MPI_Ireduce_scatter(model_.grads().data() + out_.buckets[size_t(unit)].param_offset,
                                shard_g_.data() + shards_->shard_offset(unit), shards_->counts(unit).data(),
                                MPI_FLOAT, MPI_SUM, bucket_comm_, &requests_[c]),
            "MPI_Ireduce_scatter (fsdp unit gradients)");
  return c;
}

// Outside the steps' timing: every unit's gather at once, then the wait for all of them.
void MpiBackend::materialize_weights() {
  if (!shards_) return;
  std::vector<MPI_Request> gathers(out_.buckets.size(), MPI_REQUEST_NULL);
  for (int u = 0; u < bucket_count(); ++u) gather_unit(u, &gathers[size_t(u)]);
  WatchdogGuard guard("MPI_Waitall (fsdp weights)");
  mpi_check(MPI_Waitall(static_cast<int>(gathers.size()), gathers.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall (fsdp weights)");
}

}  // namespace dasim::executor
