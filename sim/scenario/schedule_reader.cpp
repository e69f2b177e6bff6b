#include "scenario/schedule_reader.hpp"

#include "common/errors.hpp"
#include "workload/fragments.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dasim::scenario {
namespace {

using schedules::ScheduleKind;

int read_period(ObjectReader& s, const std::string& key) {
  const int64_t period = s.positive_integer(key);
  if (period > std::numeric_limits<int>::max())
    s.fail(key, fmt::format("expected a {} below 2^31, got {}", key, period));
  return static_cast<int>(period);
}

// "compression": {"bits": 32 | 16 | 8 | 4, "top_k": density in [1e-9, 1), "index_bits": 1 to 64}, at
// least one of bits and top_k; index_bits only with top_k.
void read_compression(ObjectReader c, schedules::ScheduleSpec& spec) {
  if (!c.has("bits") && !c.has("top_k"))
    c.fail("bits", "expected bits (32, 16, 8 or 4 per element), top_k (a density in [1e-9, 1)) or both");
  if (c.has("bits")) {
    const int64_t bits = c.integer("bits");
    if (!schedules::is_payload_bits(bits))
      c.fail("bits", fmt::format("expected 32, 16, 8 or 4 bits per element, got {}", bits));
    spec.payload_bits = static_cast<int>(bits);
  }
  if (auto density = c.optional_number("top_k")) {
    // Below 1e-9 even a 10^9-element model would send nothing.
    if (!(*density >= 1e-9 && *density < 1))
      c.fail("top_k", fmt::format("expected the fraction of elements sent, in [1e-9, 1), got {}", *density));
    spec.top_k.density = *density;
    if (auto index_bits = c.optional_integer_in("index_bits", 1, 64))
      spec.top_k.index_bits = static_cast<int>(*index_bits);
  } else if (c.has("index_bits")) {
    c.fail("index_bits", "index_bits needs top_k (dense payloads send no indices)");
  }
  c.finish();
}

// "outer": {"optimizer": "nesterov" | "sgd", "lr": ..., "momentum": ...}, DiLoCo's by default.
schedules::OuterStep read_outer(ObjectReader o) {
  schedules::OuterStep outer;
  outer.optimizer =
      o.optional_enumeration("optimizer", schedules::kOuterOptimizerNames).value_or(outer.optimizer);
  if (auto lr = o.optional_number("lr")) {
    if (!(*lr > 0 && *lr <= 10))
      o.fail("lr", fmt::format("expected an outer learning rate in (0, 10], got {}", *lr));
    outer.lr = *lr;
  }
  if (auto mu = o.optional_number("momentum")) {
    if (outer.optimizer != schedules::OuterOptimizer::nesterov)
      o.fail("momentum", "the sgd outer optimizer has no momentum (use \"optimizer\": \"nesterov\")");
    if (!(*mu >= 0 && *mu < 1)) o.fail("momentum", fmt::format("expected a momentum in [0, 1), got {}", *mu));
    outer.momentum = *mu;
  }
  if (outer.optimizer == schedules::OuterOptimizer::sgd) outer.momentum = 0;
  o.finish();
  return outer;
}

void read_streaming(ObjectReader& s, schedules::ScheduleSpec& spec) {
  const int64_t fragments = s.positive_integer("fragments");
  if (fragments > spec.tau || spec.tau % fragments != 0)
    s.fail("fragments",
           fmt::format("expected a fragment count that divides H = {}, got {}", spec.tau, fragments));
  spec.fragments = static_cast<int>(fragments);
  const int64_t overlap = s.integer("overlap_steps");
  if (overlap < 0 || overlap > spec.tau)
    s.fail("overlap_steps", fmt::format("expected 0 <= overlap_steps <= H = {}, got {}", spec.tau, overlap));
  spec.delay = static_cast<int>(overlap);
  spec.alpha = s.optional_number("alpha").value_or(0.0);
  if (!(spec.alpha >= 0 && spec.alpha <= 1))
    s.fail("alpha", fmt::format("expected a mixing factor in [0, 1], got {}", spec.alpha));
}

// "data_parallel": "ddp" | "fsdp": how sgd, or a periodic schedule inside its islands, keeps its
// replicas. Sharding needs a group of GPUs that share one model: all GPUs for sgd, an island
// otherwise; FSDP's units are flat buffers already, so DDP's bucket_view has nothing to say.
void read_data_parallel(ObjectReader& s, schedules::ScheduleSpec& spec) {
  auto mode = s.optional_enumeration("data_parallel", schedules::kDataParallelNames);
  if (!mode) return;
  spec.data_parallel = *mode;
  if (spec.data_parallel != schedules::DataParallel::fsdp) return;
  if (spec.kind != ScheduleKind::sgd && spec.island_gpus == 1)
    s.fail("data_parallel",
           "a periodic schedule shards the model only inside islands (set island_gpus above 1)");
  if (spec.bucket_view)
    s.fail("bucket_view", "bucket_view is a ddp option: fsdp units are flat buffers already (leave it out)");
}

// "gradient_accumulation_steps": micro-batches per optimizer step (DeepSpeed's and Hugging Face's
// name). FSDP would reduce-scatter every micro-batch or keep whole gradients (no_sync); neither is
// modelled, so the two are refused together.
void read_accumulation(ObjectReader& s, schedules::ScheduleSpec& spec) {
  auto steps = s.optional_integer_in("gradient_accumulation_steps", 1, schedules::kMostAccumulationSteps);
  if (!steps) return;
  if (*steps > 1 && schedules::has_sharded_steps(spec))
    s.fail("gradient_accumulation_steps",
           "gradient accumulation is modelled for ddp only (fsdp's micro-batches are not), expected 1");
  spec.accumulation_steps = static_cast<int>(*steps);
}

}  // namespace

schedules::ScheduleSpec read_schedule(ObjectReader s) {
  schedules::ScheduleSpec spec;
  spec.kind = s.enumeration("type", schedules::kScheduleKindNames);
  switch (spec.kind) {
    case ScheduleKind::sgd:
      if (auto cap = s.optional_bytes("bucket_cap")) spec.bucket_cap_bytes = *cap;
      spec.overlap = s.optional_boolean("overlap").value_or(true);
      spec.bucket_view = s.optional_boolean("bucket_view").value_or(false);
      break;
    case ScheduleKind::local_sgd:
      spec.tau = read_period(s, "tau");
      break;
    case ScheduleKind::dasgd: {
      spec.tau = read_period(s, "tau");
      auto d = s.integer("delay");
      if (d < 0 || d > spec.tau)
        s.fail("delay", fmt::format("expected 0 <= delay <= tau = {}, got {}", spec.tau, d));
      spec.delay = static_cast<int>(d);
      break;
    }
    case ScheduleKind::diloco:
    case ScheduleKind::streaming_diloco:
      spec.tau = read_period(s, "H");
      if (spec.kind == ScheduleKind::streaming_diloco) read_streaming(s, spec);
      // Eager outer steps overlap a whole round: diloco's one fragment (streaming overlaps its own way).
      if (spec.kind == ScheduleKind::diloco) spec.eager = s.optional_boolean("eager").value_or(false);
      if (s.has("outer")) spec.outer = read_outer(s.object("outer"));
      break;
  }
  if (spec.kind != ScheduleKind::sgd && s.has("compression")) read_compression(s.object("compression"), spec);
  if (spec.kind != ScheduleKind::sgd) {
    if (auto island = s.optional_integer_in("island_gpus", 1, 1 << 20))
      spec.island_gpus = static_cast<int>(*island);
    // Inside an island the gradients are allreduced in DDP's buckets.
    if (auto cap = s.optional_bytes("bucket_cap")) {
      if (spec.island_gpus == 1)
        s.fail("bucket_cap",
               "a periodic schedule has gradient buckets only inside islands (set island_gpus)");
      spec.bucket_cap_bytes = *cap;
    }
    if (auto view = s.optional_boolean("bucket_view")) {
      if (spec.island_gpus == 1)
        s.fail("bucket_view",
               "a periodic schedule has gradient buckets only inside islands (set island_gpus)");
      spec.bucket_view = *view;
    }
  }
  read_data_parallel(s, spec);
  read_accumulation(s, spec);
  s.finish();
  return spec;
}

void check_islands_fit(const schedules::ScheduleSpec& spec, const platform::PlatformSpec& platform,
                       const std::vector<int>& node_counts, const std::string& file,
                       const std::string& path) {
  if (!schedules::has_islands(spec)) return;
  const int g = platform.gpus_per_node;
  if (spec.island_gpus % g != 0)
    throw InputError(file, path + ".island_gpus",
                     fmt::format("expected whole nodes: a multiple of platform {}'s {} GPUs per node, got {}",
                                 platform.name, g, spec.island_gpus));
  for (int nodes : node_counts)
    if (const int64_t gpus = int64_t{nodes} * g; gpus > spec.island_gpus && gpus % spec.island_gpus != 0)
      throw InputError(file, path + ".island_gpus",
                       fmt::format("{} nodes of platform {} ({} GPUs) do not split into islands of {} GPUs",
                                   nodes, platform.name, gpus, spec.island_gpus));
}

void check_fragments_fit(const schedules::ScheduleSpec& spec, const workload::Workload& workload,
                         const std::string& file, const std::string& path) {
  if (spec.kind != ScheduleKind::streaming_diloco) return;
  const int most = workload::layers_with_parameters(workload.layer_params());
  if (spec.fragments > most)
    throw InputError(file, path + ".fragments",
                     fmt::format("expected at most {} fragments: workload {} has {} layers with parameters "
                                 "(a fragment is whole layers), got {}",
                                 most, workload.name, most, spec.fragments));
}

void check_collectives_replayable(const schedules::ScheduleSpec& spec,
                                  const collectives::CollectiveOptions& options, const std::string& file,
                                  const std::string& path) {
  if (options.progress != collectives::Progress::polled_rounds) return;
  if (schedules::has_top_k(spec))
    throw InputError(file, path + ".compression.top_k",
                     "top-k's pairs are all-gathered, and progress polled_rounds replays allreduces only");
  if (schedules::has_sharded_steps(spec))
    throw InputError(
        file, path + ".data_parallel",
        "fsdp all-gathers and reduce-scatters, and progress polled_rounds replays allreduces only");
}

}  // namespace dasim::scenario
