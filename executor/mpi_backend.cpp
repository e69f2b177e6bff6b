#include "mpi_backend.hpp"

#include "consistency.hpp"
#include "micro_batches.hpp"
#include "model_buckets.hpp"
#include "quantize.hpp"
#include "step_timing.hpp"
#include "update_rules.hpp"

#include <algorithm>
#include <stdexcept>

namespace dasim::executor {

using schedules::Payload;

MpiBackend::MpiBackend(const TrainOptions& options, Mlp& model, const Dataset& data, MPI_Comm comm,
                       TrainOutput& out)
    : options_(options), model_(model), data_(data), comm_(comm), out_(out) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &ranks_);
  bucket_comm_ = comm;
  if (schedules::has_islands(options.schedule))  // the caller checked that islands split the ranks
    mpi_check(MPI_Comm_split(comm, rank_ / options.schedule.island_gpus, rank_, &bucket_comm_),
              "MPI_Comm_split (islands)");
  MPI_Comm_size(bucket_comm_, &bucket_ranks_);
  MPI_Comm_rank(bucket_comm_, &bucket_rank_);
  ModelBuckets plan = plan_model_buckets(model, options.schedule);
  out_.buckets = std::move(plan.buckets);
  bucket_ending_at_ = std::move(plan.ending_at_layer);
  fragments_ = plan_model_fragments(model, options.schedule);
  // Between islands the island is the worker: rank r averages with rank r of every other island
  // (HSDP's replica groups; with fsdp the ranks that hold the same shard). Its island-mates hold
  // the same weights, so they add nothing to the average, and eager DiLoCo must not count them as
  // workers with an outer gradient a round old.
  averaging_comm_ = comm;
  if (schedules::has_islands(options.schedule))
    mpi_check(MPI_Comm_split(comm, bucket_rank_, rank_, &averaging_comm_), "MPI_Comm_split (island peers)");
  if (schedules::has_sharded_steps(options.schedule)) {
    shards_.emplace(out_.buckets, bucket_ranks_, bucket_rank_);
    shards_->copy_to_shard(model.weights(), shard_w_);
    shard_g_.assign(shard_w_.size(), 0.0f);
    unit_gathered_.assign(out_.buckets.size(), false);
    // The gather order below assumes the planner's: bucket 0 holds the last layers, each next
    // bucket the layers before.
    for (size_t u = 0; u < out_.buckets.size(); ++u)
      if (out_.buckets[u].last_layer !=
          (u == 0 ? size_t(model.layers() - 1) : out_.buckets[u - 1].first_layer - 1))
        throw std::logic_error("fsdp: the buckets are not whole layers in backward order");
    unit_of_layer_.assign(size_t(model.layers()), -1);
    for (size_t u = 0; u < out_.buckets.size(); ++u)
      for (size_t l = out_.buckets[u].first_layer; l <= out_.buckets[u].last_layer; ++l)
        unit_of_layer_[l] = int(u);
    for (int u = 0; u < bucket_count(); ++u) release_unit(u);  // the rank holds its shard only
  }
  MPI_Comm_size(averaging_comm_, &averaging_ranks_);
  requests_.assign(out_.buckets.size() + 1 + fragments_.size() + (shards_ ? out_.buckets.size() : 0),
                   MPI_REQUEST_NULL);
  snapshot_sum_.resize(own_weights().size());
  if (!fragments_.empty()) {  // every rank starts from the same initial weights: the first global ones
    global_ = own_weights();
    momentum_.assign(global_.size(), 0.0f);
    delta_.assign(global_.size(), 0.0f);
    delta_sum_.assign(global_.size(), 0.0f);
    if (options.schedule.eager)
      for (int i = 0; i < 2; ++i) {
        eager_delta_[i].assign(global_.size(), 0.0f);
        eager_sum_[i].assign(global_.size(), 0.0f);
      }
    if (schedules::has_top_k(options.schedule)) {
      residual_.assign(global_.size(), 0.0f);
      sent_.resize(fragments_.size());
      gathered_.resize(fragments_.size());
      // One (index, value) entry as one element: MPI counts stay the entry counts.
      mpi_check(MPI_Type_contiguous(static_cast<int>(sizeof(SparseEntry)), MPI_BYTE, &entry_type_),
                "MPI_Type_contiguous (top-k entry)");
      mpi_check(MPI_Type_commit(&entry_type_), "MPI_Type_commit (top-k entry)");
    }
  }
  loop_start_s_ = wall_now_s();
}

MpiBackend::~MpiBackend() {
  if (bucket_comm_ != comm_) MPI_Comm_free(&bucket_comm_);
  if (averaging_comm_ != comm_) MPI_Comm_free(&averaging_comm_);
  if (entry_type_ != MPI_DATATYPE_NULL) MPI_Type_free(&entry_type_);
}

void MpiBackend::begin_step(long step) {
  step_start_s_ = wall_now_s();
  call_s_ = wait_s_ = 0;
  step_ = step;
}

void MpiBackend::poll() {
  const double t0 = wall_now_s();
  for (auto& r : requests_) {
    if (r == MPI_REQUEST_NULL) continue;
    int done = 0;
    mpi_check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) clock_.completed(wall_now_s());
  }
  call_s_ += wall_now_s() - t0;
}

ParamShards::Range MpiBackend::fragment_range(int fragment) const {
  const auto& f = fragments_[size_t(fragment)];
  return shards_ ? shards_->shard_range(f.param_offset, f.params)
                 : ParamShards::Range{f.param_offset, f.params};
}

void MpiBackend::forward_backward(schedules::MicroBatch micro_batch,
                                  const schedules::BucketReady& bucket_ready) {
  fill_batch(data_, micro_batch_number(step_, micro_batch), options_.batch, x_, y_);
  // The options refuse accumulation with fsdp: its micro-batch is the step's only one.
  const float loss = shards_
                         ? sharded_forward_backward(bucket_ready)
                         : model_.forward_backward(x_.data(), y_.data(), options_.batch,
                                                   backward_hooks(
                                                       bucket_ending_at_, [this] { poll(); }, bucket_ready),
                                                   micro_batch.adds_to_gradients());
  loss_ = step_loss(loss_, loss, micro_batch);
}

MpiBackend::Collective MpiBackend::start(Payload payload) {
  const double t0 = wall_now_s();
  Collective c = snapshot_request();
  if (payload.kind == Payload::Kind::outer_gradient) {
    c = fragment_request(payload.bucket);
    const auto f = fragment_range(payload.bucket);
    auto& delta = options_.schedule.eager ? eager_delta_[eager_round_ % 2] : delta_;
    auto& sum = options_.schedule.eager ? eager_sum_[eager_round_ % 2] : delta_sum_;
    if (schedules::has_top_k(options_.schedule)) {  // selected in outer_gradient (compute)
      const auto p = size_t(payload.bucket);
      gathered_[p].resize(sent_[p].size() * size_t(averaging_ranks_));
      mpi_check(
          MPI_Iallgather(sent_[p].data(), static_cast<int>(sent_[p].size()), entry_type_, gathered_[p].data(),
                         static_cast<int>(sent_[p].size()), entry_type_, averaging_comm_, &requests_[c]),
          "MPI_Iallgather (top-k outer gradient)");
    } else {
      mpi_check(MPI_Iallreduce(delta.data() + f.offset, sum.data() + f.offset, static_cast<int>(f.count),
                               MPI_FLOAT, MPI_SUM, averaging_comm_, &requests_[c]),
                "MPI_Iallreduce (outer gradient)");
    }
  } else if (payload.kind == Payload::Kind::gradient_bucket && shards_) {
    c = start_reduce_scatter(payload.bucket);
  } else if (payload.kind == Payload::Kind::gradient_bucket) {
    c = size_t(payload.bucket);
    const auto& bucket = out_.buckets[c];
    mpi_check(
        MPI_Iallreduce(MPI_IN_PLACE, model_.grads().data() + bucket.param_offset,
                       static_cast<int>(bucket.params), MPI_FLOAT, MPI_SUM, bucket_comm_, &requests_[c]),
        "MPI_Iallreduce (gradient bucket)");
  } else {  // the DaSGD snapshot (local SGD averages its weights with a blocking allreduce)
    mpi_check(MPI_Iallreduce(snapshot_.data(), snapshot_sum_.data(), static_cast<int>(snapshot_.size()),
                             MPI_FLOAT, MPI_SUM, averaging_comm_, &requests_[c]),
              "MPI_Iallreduce (dasgd snapshot)");
  }
  clock_.started(t0);
  call_s_ += wall_now_s() - t0;
  return c;
}

void MpiBackend::wait(Collective c) {
  MPI_Request& r = requests_[c];
  if (r == MPI_REQUEST_NULL) return;
  const char* what = wait_name(c);
  const double t0 = wall_now_s();
  {
    WatchdogGuard guard(what);
    mpi_check(MPI_Wait(&r, MPI_STATUS_IGNORE), what);
  }
  const double t1 = wall_now_s();
  clock_.completed(t1);
  wait_s_ += t1 - t0;
}

const char* MpiBackend::wait_name(size_t c) const {
  if (c < snapshot_request())
    return shards_ ? "MPI_Wait (gradient reduce-scatter)" : "MPI_Wait (gradient bucket)";
  if (c == snapshot_request()) return "MPI_Wait (dasgd snapshot average)";
  if (c < fragment_request(0) + fragments_.size()) return "MPI_Wait (outer gradient average)";
  return "MPI_Wait (weights all-gather)";
}

void MpiBackend::allreduce_blocking(Payload) {
  const char* what = "MPI_Allreduce (local_sgd weight average)";
  const double t0 = wall_now_s();
  clock_.started(t0);
  {
    WatchdogGuard guard(what);
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, own_weights().data(), static_cast<int>(own_weights().size()),
                            MPI_FLOAT, MPI_SUM, averaging_comm_),
              what);
  }
  const double t1 = wall_now_s();
  clock_.completed(t1);
  wait_s_ += t1 - t0;
}

void MpiBackend::apply_gradients(bool averaged) {
  if (shards_) {  // the reduce-scatters left the island's summed gradient of this rank's shard
    if (!averaged) throw std::logic_error("fsdp steps always average their gradients (sgd or islands)");
    sgd_apply(shard_w_, shard_g_, options_.lr, bucket_ranks_);
    return;
  }
  // The gradients are the sum over the micro-batches (and the ranks, averaged): their mean is the
  // gradient of the step's whole batch.
  const int micro_batches = options_.schedule.accumulation_steps;
  sgd_apply(model_.weights(), model_.grads(), options_.lr, (averaged ? bucket_ranks_ : 1) * micro_batches);
}

void MpiBackend::average_weights() {
  average_from_sum(own_weights(), own_weights(), averaging_ranks_);
}

void MpiBackend::apply_average() {
  dasgd_merge(own_weights(), snapshot_, snapshot_sum_, averaging_ranks_);
}

void MpiBackend::outer_gradient(int fragment) {
  const auto f = fragment_range(fragment);
  auto& delta = options_.schedule.eager ? eager_delta_[eager_round_ % 2] : delta_;
  executor::outer_gradient(global_, own_weights(), delta, f.offset, f.count);
  // Top-k and the rounding to `bits` happen here, as the simulator charges them: compute of the
  // outer gradient pass, not time inside the call that starts the collective.
  const int bits = options_.schedule.payload_bits;
  if (schedules::has_top_k(options_.schedule)) {
    auto& sent = sent_[size_t(fragment)];
    top_k_select(residual_, delta, f.offset, f.count, top_k_count(options_.schedule.top_k.density, f.count),
                 sent);
    quantize_entries(sent, bits, residual_, f.offset);
  } else {  // one scale per fragment (fsdp: per rank's shard of it)
    quantize_in_place(delta, f.offset, f.count, bits);
  }
}

void MpiBackend::outer_step(int fragment) {
  const auto f = fragment_range(fragment);
  if (schedules::has_top_k(options_.schedule)) {  // the sum of every rank's pairs, in rank order
    const auto& all = gathered_[size_t(fragment)];
    std::fill(delta_sum_.begin() + f.offset, delta_sum_.begin() + f.offset + f.count, 0.0f);
    add_sparse(delta_sum_, all.data(), static_cast<int64_t>(all.size()), f.offset);
  }
  if (options_.schedule.eager) {  // delta_sum_ holds the combination this round applies
    const long now = eager_round_ % 2, before = 1 - now;
    eager_combination(delta_sum_, eager_delta_[now], eager_sum_[before], eager_delta_[before],
                      eager_round_ > 0, f.offset, f.count);
    ++eager_round_;
  }
  executor::outer_step(global_, momentum_, delta_sum_, own_weights(), options_.schedule, averaging_ranks_,
                       f.offset, f.count);
}

void MpiBackend::end_step(long) {
  step_end_s_ = wall_now_s();
  out_.steps.push_back(
      finish_step(loss_, {step_start_s_, step_end_s_, clock_.take(step_end_s_), wait_s_, call_s_}));
}

void MpiBackend::drained() {
  out_.drain_s = wall_now_s() - step_end_s_;
}

void MpiBackend::step_done(long step) {
  if (!options_.profile.empty()) {  // per-layer times are only kept for --profile
    out_.forward_s.push_back(model_.forward_times_s());
    out_.backward_s.push_back(model_.backward_times_s());
  }
  if (options_.check_consistency) {
    materialize_weights();
    check_weights_consistency(options_.schedule, step, options_.steps, model_.weights(), comm_, ranks_);
    ++out_.consistency_checks;
    if (shards_)  // freed again: the next forward must gather every unit, as without the check
      for (int u = 0; u < bucket_count(); ++u) release_unit(u);
  }
  report_progress(options_, rank_, step, out_.steps.back(), loop_start_s_);
}

}  // namespace dasim::executor
