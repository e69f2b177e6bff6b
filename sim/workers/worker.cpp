#include "workers/worker.hpp"

#include "runtime/child_progress.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace dasim::workers {
namespace {
double now() {
  return sg4::Engine::get_clock();
}
// The interference load never finishes on its own: it is cancelled when the last collective in
// flight completes (1e9 s of the GPU's speed at a bound of at most half of it).
constexpr double kLoadSeconds = 1e9;
}  // namespace

Worker::Worker(const WorkerSetup& setup, const StepPlan& plan, const schedules::ScheduleSpec& schedule,
               collectives::Communicator& comm, WorkerRecord& record, collectives::Communicator* island,
               collectives::Communicator* peers)
    : setup_(setup),
      plan_(plan),
      schedule_(schedule),
      comm_(comm),
      record_(record),
      island_(island),
      peers_(peers),
      rng_(setup.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(setup.rank)) {}

void Worker::compute(double seconds, const char* name) {
  const double t = seconds * setup_.slowdown * step_factor_;
  if (t <= 0) return;
  const double begin = now();
  // Collectives start only in this actor, between two computes: with none in flight now, none
  // starts before this compute ends, which then runs at full speed throughout.
  const bool shared = collectives_in_flight_ > 0;
  // The GPU is a host whose speed is its FLOP/s: executing t x speed FLOPs takes t seconds and
  // keeps the GPU a resource (a host speed profile can slow it down, the interference load too).
  sg4::this_actor::execute(t * sg4::this_actor::get_host()->get_speed());
  record_.add(record_.compute, begin, now(), name, "compute");
  if (shared) record_.slowed.push_back({begin, now(), std::max(0.0, now() - begin - t)});
}

// SimGrid shares a host's speed S between its executions by max-min fairness: beside a load
// bounded at S f / (1 + f) (less than S / 2, f < 1) a compute gets S / (1 + f), exactly, from the
// instant the load starts to the instant it is cancelled, and at full speed outside. So the
// compute overlapped with a collective takes (1 + f) times as long, the rest its own time.
void Worker::track_interference(const Collective& allreduce) {
  const double f = setup_.interference;
  // Only device-driven collectives run kernels beside the compute; host-progressed and polled
  // ones are the rank's own calls, between its computes.
  if (f <= 0 || comm_.options().progress != collectives::Progress::async || allreduce->pending->test())
    return;
  auto* host = sg4::this_actor::get_host();
  if (collectives_in_flight_++ == 0) {
    load_ = sg4::this_actor::exec_init(kLoadSeconds * host->get_speed());
    load_->set_bound(host->get_speed() * f / (1 + f));
    load_->set_name("interference");
    load_->start();
  }
  // Cancelled in the actor whose part ends the collective, at that instant: one callback, not an
  // actor per rank and collective waiting for it.
  allreduce->pending->on_finished([this] {
    if (--collectives_in_flight_ == 0) {
      load_->cancel();
      load_ = nullptr;
    }
  });
}

void Worker::compute_layers(const std::vector<double>& layers_s, double total_s, const char* name) {
  if (comm_.options().progress != collectives::Progress::polled_rounds) return compute(total_s, name);
  for (double layer_s : layers_s) {
    compute(layer_s, name);
    poll();
  }
}

void Worker::poll() {
  const double begin = now();
  for (const auto& allreduce : rings_in_flight_)
    if (!allreduce->ring->done(allreduce->group_rank)) allreduce->ring->progress(allreduce->group_rank);
  if (now() > begin) record_.add(record_.wait, begin, now(), "polls", "wait");
}

Worker::Collective Worker::start_collective(collectives::Op op, double bytes, const std::string& name,
                                            collectives::Communicator& group, int group_rank) {
  auto allreduce =
      std::make_shared<Allreduce>(Allreduce{op, bytes, name, nullptr, nullptr, now(), &group, group_rank});
  if (comm_.options().progress == collectives::Progress::polled_rounds && group.size() > 1) {
    // The scenario reader refuses top-k with polled_rounds, which replays allreduces only.
    if (op != collectives::Op::allreduce)
      throw std::logic_error("polled_rounds progress replays allreduces only, not " +
                             collectives::to_string(op));
    allreduce->ring = group.join_polled_ring(group_rank, bytes);
    rings_in_flight_.push_back(allreduce);
    poll();  // the starting call (MPI_Iallreduce) already does what it can
    return allreduce;
  }
  // Device-driven collectives (NCCL) and polled ones run while the rank computes; host-progressed
  // ones (MPI on CPU ranks that make no call in between) only advance inside the wait, so they
  // start there.
  if (comm_.options().progress != collectives::Progress::host) {
    allreduce->pending = group.start(group_rank, op, bytes);
    track_interference(allreduce);
  }
  return allreduce;
}

void Worker::wait(const Collective& allreduce) {
  wait_for(allreduce);
  compute(allreduce->copy_out_s, "bucket copy out");
}

void Worker::wait_for(const Collective& allreduce) {
  const double begin = now();
  if (allreduce->ring) {
    allreduce->ring->wait(allreduce->group_rank);
    if (now() > begin) record_.add(record_.wait, begin, now(), "wait", "wait");
    record_.add_comm(allreduce->started_at, allreduce->ring->done_at(allreduce->group_rank), allreduce->name,
                     allreduce->bytes, collectives::kPolledRingChoice);
    std::erase(rings_in_flight_, allreduce);
    return;
  }
  if (!allreduce->pending)
    allreduce->pending = allreduce->group->start(allreduce->group_rank, allreduce->op, allreduce->bytes);
  auto& pending = *allreduce->pending;
  pending.wait();
  if (now() > begin) record_.add(record_.wait, begin, now(), "wait", "wait");
  record_.add_comm(pending.started_at(), pending.finished_at(), allreduce->name, allreduce->bytes,
                   pending.choice());
  if (comm_.options().progress == collectives::Progress::polled) {
    // The rank's core did the copies and reductions of the collective's active time: the part
    // that overlapped the wait inside it, the rest inside the polls between layers, paid here.
    // Active time another collective in flight already paid for is not paid twice.
    const double active_from = std::max(pending.all_started_at(), polled_until_),
                 active_to = pending.finished_at();
    polled_until_ = std::max(polled_until_, active_to);
    const double in_wait = std::max(0.0, active_to - std::max(begin, active_from));
    const double in_polls = std::max(0.0, active_to - active_from) - in_wait;
    if (in_polls > 0) {
      const double polls_begin = now();
      sg4::this_actor::sleep_for(in_polls);
      record_.add(record_.wait, polls_begin, now(), "polls", "wait");
    }
  }
}

void Worker::begin_step(long) {
  step_factor_ = setup_.jitter_stddev > 0 ? std::max(0.05, 1 + setup_.jitter_stddev * jitter_(rng_)) : 1.0;
  loader_began_at_ = now();
}

void Worker::wait_for_input() {
  const double ready = loader_began_at_ + plan_.input_per_step_s;
  const double begin = now();
  if (plan_.input_per_step_s <= 0 || ready <= begin) return;
  sg4::this_actor::sleep_until(ready);
  record_.add(record_.input, begin, now(), "input", "input");
}

void Worker::forward_backward(schedules::MicroBatch micro_batch, const schedules::BucketReady& bucket_ready) {
  // The scenario reader refuses accumulation with fsdp.
  if (schedules::has_sharded_steps(schedule_)) return sharded_forward_backward(bucket_ready);
  compute_layers(plan_.forward_layers_s, plan_.forward_s, "forward");
  backward(micro_batch.adds_to_gradients(), bucket_ready);
}

void Worker::backward(bool adds, const schedules::BucketReady& bucket_ready) {
  const double share = adds ? 1.0 : 0.0;
  if (comm_.options().progress == collectives::Progress::polled_rounds) {
    // Layer by layer as dasim-train: a bucket starts where its last gradient is ready, then a poll.
    for (size_t l = 0; l < plan_.backward_layers_s.size(); ++l) {
      compute(plan_.backward_layers_s[l] + share * plan_.backward_layers_adds_s[l], "backward");
      if (bucket_ready && plan_.bucket_after_backward_layer[l] >= 0)
        bucket_ready(plan_.bucket_after_backward_layer[l]);
      poll();
    }
    return;
  }
  if (!bucket_ready) return compute(plan_.backward_s() + share * plan_.backward_adds_s(), "backward");
  for (const auto& segment : plan_.backward) {
    compute(segment.time_s + share * segment.adds_s, "backward");
    if (segment.bucket >= 0) bucket_ready(segment.bucket);
  }
}

// PyTorch FSDP (FULL_SHARD; FSDP2's fully_shard with reshard_after_forward behaves alike): a
// unit's weights are all-gathered before its forward and freed after it, the next unit's gather
// issued as this unit's compute begins (one unit of prefetch); backward gathers each unit again
// (but the one forward ended with: FSDP keeps its root's weights for backward), prefetching the
// next unit's as this unit's backward begins (BackwardPrefetch.BACKWARD_PRE), and hands each unit
// to the schedule as its gradients are complete (the engine reduce-scatters it, start()).
void Worker::sharded_forward_backward(const schedules::BucketReady& bucket_ready) {
  std::vector<Collective> gathered(static_cast<size_t>(bucket_count()));
  auto gather = [&](int unit, const char* pass) {
    if (unit >= 0 && !gathered[size_t(unit)])
      gathered[size_t(unit)] =
          start_collective(collectives::Op::all_gather, plan_.bucket_bytes[size_t(unit)],
                           fmt::format("all_gather unit {} ({})", unit, pass), step_group(), step_rank());
  };
  // The first unit after segment `j` that needs a gather (-1: none).
  auto next_unit = [](const auto& segments, size_t j, auto unit_of, int kept) {
    for (size_t n = j + 1; n < segments.size(); ++n)
      if (const int unit = unit_of(segments[n]); unit >= 0 && unit != kept) return unit;
    return -1;
  };
  auto forward_unit = [](const ForwardSegment& s) { return s.unit; };
  auto backward_unit = [](const BackwardSegment& s) { return s.bucket; };

  int kept = -1;  // the unit whose forward ran last
  // The first unit's gather runs beside the layers before it, if any.
  gather(plan_.forward.empty() || plan_.forward[0].unit >= 0 ? -1
                                                             : next_unit(plan_.forward, 0, forward_unit, -1),
         "forward");
  for (size_t j = 0; j < plan_.forward.size(); ++j) {
    if (const int unit = plan_.forward[j].unit; unit >= 0) {
      gather(unit, "forward");
      wait_for(gathered[size_t(unit)]);
      kept = unit;
      gather(next_unit(plan_.forward, j, forward_unit, -1), "forward");
    }
    compute(plan_.forward[j].time_s, "forward");
  }
  std::fill(gathered.begin(), gathered.end(), nullptr);
  for (size_t j = 0; j < plan_.backward.size(); ++j) {
    const int unit = plan_.backward[j].bucket;
    if (unit >= 0 && unit != kept) {
      gather(unit, "backward");
      wait_for(gathered[size_t(unit)]);
    }
    gather(next_unit(plan_.backward, j, backward_unit, kept), "backward");
    compute(plan_.backward[j].time_s, "backward");
    if (unit >= 0 && bucket_ready) bucket_ready(unit);
  }
}

Worker::Collective Worker::start(schedules::Payload payload) {
  using Kind = schedules::Payload::Kind;
  switch (payload.kind) {
    case Kind::gradient_bucket: {  // inside the island with hierarchical data parallelism
      auto& group = step_group();
      const auto b = size_t(payload.bucket);
      if (schedules::has_sharded_steps(schedule_))  // fsdp: each GPU keeps its shard's sum
        return start_collective(collectives::Op::reduce_scatter, plan_.bucket_bytes[b],
                                fmt::format("reduce_scatter unit {}", payload.bucket), group, step_rank());
      // DDP copies the gradients into the bucket on the compute stream before the allreduce, and
      // the average back after it; one GPU alone runs no DDP reducer.
      const double copy_s = !schedule_.bucket_view && group.size() > 1 ? plan_.bucket_copy_s[b] : 0.0;
      compute(copy_s, "bucket copy in");
      auto allreduce = start_collective(
          collectives::Op::allreduce, plan_.bucket_bytes[b],
          fmt::format("{}allreduce bucket {}", island_ ? "island " : "", payload.bucket), group, step_rank());
      allreduce->copy_out_s = copy_s;
      return allreduce;
    }
    case Kind::weights:
      compute(plan_.compress_s, compress_name());
      return start_averaging(plan_.averaged_payload_bytes, "weights");
    case Kind::snapshot:
      compute(plan_.compress_s, compress_name());
      return start_averaging(plan_.averaged_payload_bytes, "snapshot");
    case Kind::outer_gradient:
      return start_averaging(plan_.fragment_payload_bytes[size_t(payload.bucket)],
                             plan_.fragment_payload_bytes.size() == 1
                                 ? std::string("outer gradient")
                                 : fmt::format("outer gradient {}", payload.bucket));
  }
  return nullptr;
}

Worker::Collective Worker::start_averaging(double bytes, const std::string& what) {
  auto& group = peers_ ? *peers_ : comm_;
  const int rank = peers_ ? setup_.island : setup_.rank;
  if (plan_.gather_averages)
    return start_collective(collectives::Op::all_gather, bytes, "all_gather top-k " + what, group, rank);
  return start_collective(collectives::Op::allreduce, bytes, "allreduce " + what, group, rank);
}

void Worker::apply_gradients(bool) {
  compute(plan_.update_s, "update");
}

void Worker::take_snapshot() {
  compute(plan_.snapshot_s, "snapshot");
}

void Worker::average_weights() {
  compute(plan_.decompress_s, decompress_name());
}

void Worker::apply_average() {
  compute(plan_.decompress_s, decompress_name());
  compute(plan_.apply_average_s, "apply average");
}

void Worker::outer_gradient(int fragment) {
  compute(plan_.outer_gradient_s[size_t(fragment)], "outer gradient");
}

void Worker::outer_step(int fragment) {
  compute(plan_.outer_step_s[size_t(fragment)], "outer step");
}

void Worker::end_step(long step) {
  wait_for_input();
  record_.iteration_end_s.push_back(now());
  // How far the simulation is, for `dasim run`'s progress line: rank 0's steps of all of them.
  if (setup_.rank == 0)
    runtime::report_child_progress(double(step) / setup_.iterations);  // steps are 1-based
}

void Worker::operator()() {
  schedules::run_schedule(schedule_, setup_.iterations, *this);
}

}  // namespace dasim::workers
