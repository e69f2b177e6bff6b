// Serial n-replica reference of sgd, local_sgd and dasgd (see reference.hpp).
#include "reference.hpp"

#include "micro_batches.hpp"
#include "mlp.hpp"
#include "model_buckets.hpp"
#include "param_shards.hpp"
#include "quantize.hpp"
#include "top_k.hpp"
#include "update_rules.hpp"

#include <algorithm>

namespace dasim::executor {
namespace {

std::vector<float> sum_over(const std::vector<std::vector<float>>& buffers, size_t stride = 1) {
  std::vector<float> sum = buffers.front();
  for (size_t j = stride; j < buffers.size(); j += stride)
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += buffers[j][i];
  return sum;
}

// fsdp: rank r of an island rounds its shard of the fragment with a scale of its own, so the
// values a replica sends are rounded shard by shard.
void quantize_by_shard(std::vector<float>& delta, const std::vector<ParamShards>& owners, int64_t offset,
                       int64_t count, int bits) {
  std::vector<float> shard;
  for (const auto& owner : owners) {
    owner.copy_to_shard(delta, shard);
    const auto range = owner.shard_range(offset, count);
    quantize_in_place(shard, range.offset, range.count, bits);
    owner.copy_from_shard(shard, delta);
  }
}

}  // namespace

ReferenceResult run_reference(const schedules::ScheduleSpec& schedule, const std::vector<int>& widths,
                              uint64_t seed, const std::vector<Dataset>& shards, int batch, float lr,
                              int steps) {
  const int n = static_cast<int>(shards.size());
  // Between islands the island is the worker: the averages take one replica of each (its mates
  // hold the same weights), in island order, as the trainer's ranks of one index do.
  const int island = has_islands(schedule) ? schedule.island_gpus : 1, workers = n / island;
  std::vector<Mlp> models(n, Mlp(widths, seed));
  std::vector<std::vector<float>> snapshots(n);
  std::vector<float> snapshot_sum;
  bool pending = false;
  long due = 0;
  std::vector<float> x;
  std::vector<int32_t> y;
  ReferenceResult result;
  auto merge = [&] {
    for (int j = 0; j < n; ++j) dasgd_merge(models[j].weights(), snapshots[j], snapshot_sum, workers);
    pending = false;
  };
  // The DiLoCo family: one global copy (the ranks' copies are identical by construction), the
  // outer gradients' sum per fragment, and the step each fragment's outer step is due.
  const auto fragments = plan_model_fragments(models.front(), schedule);
  std::vector<float> global = models.front().weights(), momentum(global.size(), 0.0f), delta(global.size()),
                     delta_sum(global.size());
  std::vector<long> outer_due(fragments.size(), 0);
  std::vector<ParamShards> shard_owners;  // fsdp: each rank's shard of an island
  if (has_sharded_steps(schedule) && has_islands(schedule)) {
    const auto units = plan_model_buckets(models.front(), schedule).buckets;
    for (int r = 0; r < island; ++r) shard_owners.emplace_back(units, island, r);
  }
  // Top-k: each replica's error-feedback residual; the pairs it sends.
  std::vector<std::vector<float>> residuals(size_t(n), std::vector<float>(global.size(), 0.0f));
  std::vector<SparseEntry> sent;
  // Eager diloco: per replica its outer weights and momentum (they differ), its outer gradients of
  // this round and the one before, and the previous round's sum.
  std::vector<std::vector<float>> eager_global(size_t(n), global), eager_momentum(size_t(n), momentum),
      eager_own(size_t(n), std::vector<float>(global.size())), eager_own_prev = eager_own;
  std::vector<float> eager_sum_prev(global.size(), 0.0f);
  long eager_rounds = 0;
  auto apply_outer = [&](size_t p) {
    const auto& f = fragments[p];
    for (int j = 0; j < n; ++j) {  // every replica's outer step starts from the same global state
      std::vector<float> g = global;
      std::vector<float> m = momentum;
      outer_step(g, m, delta_sum, models[j].weights(), schedule, workers, f.param_offset, f.params);
      if (j == n - 1) {
        global = g;
        momentum = m;
      }
    }
    outer_due[p] = 0;
  };

  for (long k = 1; k <= steps; ++k) {
    double loss = 0;
    std::vector<std::vector<float>> grads(n);
    const int micro_batches = schedule.accumulation_steps;
    for (int j = 0; j < n; ++j) {
      float step_loss_j = 0;
      for (int m = 0; m < micro_batches; ++m) {  // each adds its gradients to the step's
        const schedules::MicroBatch micro_batch{m, micro_batches};
        fill_batch(shards[j], micro_batch_number(k, micro_batch), batch, x, y);
        step_loss_j = step_loss(
            step_loss_j,
            models[j].forward_backward(x.data(), y.data(), batch, {}, micro_batch.adds_to_gradients()),
            micro_batch);
      }
      loss += step_loss_j;
      grads[j] = models[j].grads();
    }
    result.mean_loss.push_back(loss / n);

    if (schedule.kind == schedules::ScheduleKind::sgd) {
      const auto grad_sum = sum_over(grads);
      for (auto& m : models) sgd_apply(m.weights(), grad_sum, lr, n * micro_batches);
      continue;
    }
    if (has_islands(schedule)) {  // each island of consecutive replicas averages its gradients
      for (int first = 0; first < n; first += island) {
        const auto island_sum =
            sum_over(std::vector<std::vector<float>>(grads.begin() + first, grads.begin() + first + island));
        for (int j = first; j < first + island; ++j)
          sgd_apply(models[j].weights(), island_sum, lr, island * micro_batches);
      }
    } else {
      for (int j = 0; j < n; ++j) sgd_apply(models[j].weights(), grads[j], lr, micro_batches);
    }
    if (schedule.kind == schedules::ScheduleKind::local_sgd) {
      if (is_averaging_step(schedule, k)) {
        std::vector<std::vector<float>> all;
        for (auto& m : models) all.push_back(m.weights());
        const auto weight_sum = sum_over(all, size_t(island));
        for (auto& m : models) average_from_sum(m.weights(), weight_sum, workers);
      }
      continue;
    }
    if (schedule.eager) {  // every replica its own outer weights: the own part of each step is fresh
      if (!is_fragment_sync_step(schedule, 0, k)) continue;
      const auto& f = fragments.front();
      std::vector<float> sum(global.size(), 0.0f), comb(global.size());
      for (int j = 0; j < n; ++j) {
        outer_gradient(eager_global[size_t(j)], models[j].weights(), eager_own[size_t(j)], f.param_offset,
                       f.params);
        if (j % island == 0)
          for (size_t i = 0; i < sum.size(); ++i) sum[i] += eager_own[size_t(j)][i];
      }
      for (int j = 0; j < n; ++j) {
        eager_combination(comb, eager_own[size_t(j)], eager_sum_prev, eager_own_prev[size_t(j)],
                          eager_rounds > 0, f.param_offset, f.params);
        outer_step(eager_global[size_t(j)], eager_momentum[size_t(j)], comb, models[j].weights(), schedule,
                   workers, f.param_offset, f.params);
      }
      eager_sum_prev = sum;
      eager_own_prev = eager_own;
      ++eager_rounds;
      continue;
    }
    if (is_diloco_family(schedule)) {
      for (size_t p = 0; p < fragments.size(); ++p)
        if (outer_due[p] == k) apply_outer(p);
      for (size_t p = 0; p < fragments.size(); ++p) {
        if (!is_fragment_sync_step(schedule, int(p), k)) continue;
        const auto& f = fragments[p];
        std::fill(delta_sum.begin() + f.param_offset, delta_sum.begin() + f.param_offset + f.params, 0.0f);
        for (int j = 0; j < n; j += island) {  // in rank order, as the trainer adds the gathered pairs
          outer_gradient(global, models[j].weights(), delta, f.param_offset, f.params);
          if (has_top_k(schedule)) {
            const int64_t kept = top_k_count(schedule.top_k.density, f.params);
            top_k_select(residuals[size_t(j)], delta, f.param_offset, f.params, kept, sent);
            quantize_entries(sent, schedule.payload_bits, residuals[size_t(j)], f.param_offset);
            add_sparse(delta_sum, sent.data(), kept, f.param_offset);
            continue;
          }
          if (shard_owners.empty())
            quantize_in_place(delta, f.param_offset, f.params, schedule.payload_bits);
          else
            quantize_by_shard(delta, shard_owners, f.param_offset, f.params, schedule.payload_bits);
          for (int64_t i = f.param_offset; i < f.param_offset + f.params; ++i)
            delta_sum[size_t(i)] += delta[size_t(i)];
        }
        outer_due[p] = k + schedule.delay;
        if (schedule.delay == 0) apply_outer(p);
      }
      continue;
    }
    if (pending && k == due) merge();
    if (is_averaging_step(schedule, k)) {
      for (int j = 0; j < n; ++j) snapshots[j] = models[j].weights();
      snapshot_sum = sum_over(snapshots, size_t(island));
      pending = true;
      due = k + schedule.delay;
      if (schedule.delay == 0) merge();
    }
  }
  if (pending) merge();  // the trainer also completes an average still in flight at the end
  std::vector<size_t> in_flight;
  for (size_t p = 0; p < fragments.size(); ++p)
    if (outer_due[p] > 0) in_flight.push_back(p);
  std::sort(in_flight.begin(), in_flight.end(),
            [&](size_t a, size_t b) { return outer_due[a] < outer_due[b]; });
  for (size_t p : in_flight) apply_outer(p);
  for (auto& m : models) result.weights.push_back(m.weights());
  return result;
}

}  // namespace dasim::executor
