#include "workers/step_plan.hpp"

#include "workload/fragments.hpp"
#include "workload/recompute.hpp"

#include <algorithm>
#include <cmath>

namespace dasim::workers {

double StepPlan::backward_s() const {
  double total = 0;
  for (const auto& s : backward) total += s.time_s;
  return total;
}

double StepPlan::backward_adds_s() const {
  double total = 0;
  for (const auto& s : backward) total += s.adds_s;
  return total;
}

namespace {

// Forward in stretches of one unit: a layer with parameters of another unit than the open
// stretch's starts a new one; layers without parameters stay in the open stretch (those before
// the first unit in a stretch of their own, which needs no gather).
std::vector<ForwardSegment> forward_segments(const workload::Workload& workload,
                                             const std::vector<workload::Bucket>& buckets,
                                             const std::vector<double>& forward_layers_s) {
  std::vector<int> unit_of(workload.layers.size(), -1);
  for (size_t b = 0; b < buckets.size(); ++b)
    for (size_t l = buckets[b].first_layer; l <= buckets[b].last_layer; ++l)
      if (workload.layers[l].params > 0) unit_of[l] = static_cast<int>(b);
  std::vector<ForwardSegment> segments;
  for (size_t l = 0; l < workload.layers.size(); ++l) {
    if (segments.empty() || (unit_of[l] >= 0 && unit_of[l] != segments.back().unit))
      segments.push_back({0, unit_of[l]});
    segments.back().time_s += forward_layers_s[l];
  }
  return segments;
}

}  // namespace

StepPlan plan_step(const workload::Workload& workload, const compute::ComputeModel& model,
                   double memory_bandwidth_Bps, int batch, double bucket_cap_bytes, int shards,
                   int micro_batches) {
  StepPlan plan;
  plan.micro_batches = micro_batches;
  for (const auto& layer : workload.layers) {
    plan.forward_layers_s.push_back(model.forward_time_s(layer, batch));
    plan.forward_s += plan.forward_layers_s.back();
  }
  auto buckets = workload::plan_buckets(workload, bucket_cap_bytes);
  plan.forward = forward_segments(workload, buckets, plan.forward_layers_s);
  std::vector<int> bucket_ready_at(workload.layers.size(), -1);
  for (size_t b = 0; b < buckets.size(); ++b) {
    bucket_ready_at[buckets[b].ready_after_layer] = static_cast<int>(b);
    plan.bucket_bytes.push_back(buckets[b].bytes);
  }
  // Activation checkpointing: a block's forward runs again right before its last layer's backward.
  const std::vector<double> recompute_s =
      workload::recompute_before_backward_s(workload, plan.forward_layers_s);
  BackwardSegment open;
  for (size_t i = workload.layers.size(); i-- > 0;) {
    plan.backward_layers_s.push_back(recompute_s[i] +
                                     model.layer_backward_s(workload, workload.layers[i], batch, shards));
    plan.bucket_after_backward_layer.push_back(bucket_ready_at[i]);
    plan.backward_layers_adds_s.push_back(
        micro_batches > 1 ? model.micro_batch_add_s(workload, workload.layers[i]) : 0.0);
    open.time_s += plan.backward_layers_s.back();
    open.adds_s += plan.backward_layers_adds_s.back();
    if (bucket_ready_at[i] >= 0) {
      open.bucket = bucket_ready_at[i];
      plan.backward.push_back(open);
      open = BackwardSegment{};
    }
  }
  if (open.time_s > 0 || open.adds_s > 0 || plan.backward.empty()) plan.backward.push_back(open);
  plan.update_s = model.update_time_s(workload, shards);
  // A loader slower than the GPU makes the next step wait for its batches.
  plan.input_per_step_s = model.input_time_s(double(micro_batches) * batch);
  plan.weight_bytes = workload.gradient_bytes();
  for (double bytes : plan.bucket_bytes)
    plan.bucket_copy_s.push_back(memory_bandwidth_Bps > 0 ? 2 * bytes / memory_bandwidth_Bps : 0.0);
  if (memory_bandwidth_Bps > 0) {
    plan.apply_average_s = 4 * plan.weight_bytes / shards / memory_bandwidth_Bps;
    plan.snapshot_s = 2 * plan.weight_bytes / shards / memory_bandwidth_Bps;
  }
  return plan;
}

double scattered_bytes(double k, double n, double element_bytes) {
  return std::min(k * std::max(kMemorySectorBytes, element_bytes), n * element_bytes);
}

namespace {

// The compress and decompress passes of one averaged payload of n elements, in bytes moved, and
// what one rank puts on the wire.
struct CodecBytes {
  double compress = 0, decompress = 0, payload_per_rank = 0;
};

// Top-k with islands of g GPUs: the g replicas of an island are identical, so each GPU selects
// ceil(density x n / g) entries of its 1/g shard of the payload (chunk-wise top-k) and the
// all-gather over all GPUs carries each island's pairs once; every GPU then adds the W islands'.
// local_sgd and dasgd send the weights' change since the last average: forming it (read the
// weights and the last average, write the change: 3 streams) before the selection, and after
// the sum the new average (read the last one and the sum, write: 3) copied to the weights (2).
CodecBytes codec_bytes(double n, double element_bytes, const schedules::ScheduleSpec& schedule, int ranks,
                       int island_gpus) {
  const double value_bytes = std::min(element_bytes, schedule.payload_bits / 8.0);
  CodecBytes c;
  if (!schedules::has_top_k(schedule)) {
    c.payload_per_rank = n * value_bytes;
    if (value_bytes < element_bytes) c.compress = c.decompress = n * (element_bytes + value_bytes);
    return c;
  }
  const double g = island_gpus, workers = static_cast<double>(ranks) / island_gpus;
  const double shard = n / g, k_shard = schedules::top_k_entries(schedule.top_k.density, shard);
  const double pair_bytes = value_bytes + schedule.top_k.index_bits / 8.0;
  c.payload_per_rank = k_shard * pair_bytes;
  c.compress =
      4 * shard * element_bytes + c.payload_per_rank + scattered_bytes(k_shard, shard, element_bytes);
  const double k = k_shard * g;  // the island's pairs
  c.decompress = n * element_bytes + workers * (k * pair_bytes + 2 * scattered_bytes(k, n, element_bytes));
  if (!schedules::is_diloco_family(schedule)) {
    c.compress += 3 * n * element_bytes;
    c.decompress += 5 * n * element_bytes;
  }
  return c;
}

}  // namespace

void plan_averaging(StepPlan& plan, const workload::Workload& workload,
                    const schedules::ScheduleSpec& schedule, double memory_bandwidth_Bps, int ranks,
                    int island_gpus) {
  const double element_bytes = workload.gradient_element_bytes();
  // Seconds to stream `bytes` through memory once; no bandwidth calibrated: free, as the dasgd passes.
  auto pass_s = [&](double bytes) { return memory_bandwidth_Bps > 0 ? bytes / memory_bandwidth_Bps : 0.0; };
  // The all-gather carries every rank's pairs; the allreduce one (reduced) payload.
  plan.gather_averages = schedules::has_top_k(schedule);
  auto on_the_wire = [&](const CodecBytes& c) {
    return plan.gather_averages ? ranks * c.payload_per_rank : c.payload_per_rank;
  };
  // Sharded islands: each GPU averages its 1/g of the weights with the GPUs of its index in the
  // other islands, as a worker of its own: the passes and payload of the shard among the islands.
  double share = 1;
  if (schedules::has_sharded_steps(schedule) && island_gpus > 1) {
    share = 1.0 / island_gpus;
    ranks /= island_gpus;
    island_gpus = 1;
  }
  const double params = static_cast<double>(workload.total_params()) * share;
  const CodecBytes whole = codec_bytes(params, element_bytes, schedule, ranks, island_gpus);
  plan.averaged_payload_bytes = on_the_wire(whole);
  plan.compress_s = pass_s(whole.compress);
  plan.decompress_s = pass_s(whole.decompress);
  plan.fragment_payload_bytes.clear();
  plan.outer_gradient_s.clear();
  plan.outer_step_s.clear();
  if (!schedules::is_diloco_family(schedule)) return;
  // Eager steps first combine Delta_own(r) + S(r-1) - Delta_own(r-1): 3 more streams read.
  const int step_streams =
      (schedule.outer.optimizer == schedules::OuterOptimizer::nesterov ? 7 : 5) + (schedule.eager ? 3 : 0);
  for (const auto& f : workload::plan_fragments(workload.layer_params(), schedule.fragments)) {
    const double fragment_params = static_cast<double>(f.params) * share;
    const CodecBytes fragment = codec_bytes(fragment_params, element_bytes, schedule, ranks, island_gpus);
    plan.fragment_payload_bytes.push_back(on_the_wire(fragment));
    plan.outer_gradient_s.push_back(pass_s(3 * fragment_params * element_bytes + fragment.compress));
    plan.outer_step_s.push_back(pass_s(fragment.decompress + step_streams * fragment_params * element_bytes));
  }
}

}  // namespace dasim::workers
