// The one schedule engine: the step loop and the state machine of every schedule in
// docs/algorithms.md, written once over the operations of a backend. The SimGrid worker
// (sim/workers), the MPI trainer and the CUDA/NCCL trainer (executor/) implement those operations
// and nothing else, so "the executor runs the simulator's schedules" holds by construction.
//
// One step k (1-based) of each schedule, as the engine drives it:
//   sgd        forward_backward(start bucket b as it becomes ready) -> wait every bucket
//              -> apply_gradients(averaged)          (no overlap: buckets start after backward)
//   local_sgd  forward_backward -> apply_gradients(local) -> every tau steps:
//              allreduce_blocking(weights) -> average_weights
//   dasgd      forward_backward -> apply_gradients(local) -> at k0 + d: wait(snapshot average)
//              -> apply_average -> every tau steps (k0): take_snapshot -> start(snapshot);
//              d = 0 merges at once
//   diloco /   forward_backward -> apply_gradients(local) -> for each fragment p whose outer step
//   streaming  is due at k: wait(its outer gradient average) -> outer_step(p) -> for each fragment p
//   _diloco    synchronised at k (periods.hpp): outer_gradient(p) -> start(its outer gradient), due
//              at k + d (d = 0: wait and outer_step at once; diloco is P = 1, d = 0);
//              eager diloco: outer_gradient -> start(it) -> wait(the previous round's) -> outer_step
// With islands (has_islands: hierarchical data parallelism) the periodic schedules' local step is
// sgd's step inside the island: forward_backward(start bucket b) -> wait every bucket ->
// apply_gradients(averaged), the backend's gradient buckets going to the island's communicator.
// Then end_step(k); after the last step an average still in flight is drained (wait + apply,
// outside every step, reported through drained()); then step_done(k).
// Gradient accumulation (accumulation_steps A > 1): every forward_backward above is A of them, one
// per micro-batch, the backend adding each micro-batch's gradients to the step's; only the last
// starts the gradient buckets (DDP's no_sync() on the others), and the update follows it.
#pragma once

#include "schedules/periods.hpp"
#include "schedules/schedule_spec.hpp"

#include <algorithm>
#include <concepts>
#include <functional>
#include <vector>

namespace dasim::schedules {

// What a collective carries.
struct Payload {
  enum class Kind { gradient_bucket, weights, snapshot, outer_gradient };
  Kind kind;
  int bucket = -1;  // gradient_bucket: which one, in ready order; outer_gradient: the fragment

  static Payload gradient_bucket(int b) { return {Kind::gradient_bucket, b}; }
  static Payload weights() { return {Kind::weights, -1}; }
  static Payload snapshot() { return {Kind::snapshot, -1}; }
  static Payload outer_gradient(int fragment) { return {Kind::outer_gradient, fragment}; }
};

// Which micro-batch of the step a forward_backward computes: the first one's gradients start the
// step's, each later one's are added to them (gradient accumulation, A = count > 1).
struct MicroBatch {
  int index = 0;
  int count = 1;
  bool adds_to_gradients() const { return index > 0; }
};

// Called by forward_backward when bucket b's gradients are complete. An empty function means the
// schedule starts no collective during backward, so a backend may compute backward in one piece.
using BucketReady = std::function<void(int bucket)>;

template <class B>
concept ScheduleBackend = requires(B b, long step, int fragment, const BucketReady& ready, Payload payload,
                                   typename B::Collective& collective, bool averaged,
                                   MicroBatch micro_batch) {
  { b.bucket_count() } -> std::convertible_to<int>;
  b.begin_step(step);
  b.forward_backward(micro_batch, ready);
  { b.start(payload) } -> std::same_as<typename B::Collective>;  // a non-blocking allreduce
  b.wait(collective);
  b.allreduce_blocking(payload);
  b.apply_gradients(averaged);  // averaged: the gradients are the allreduced sum (sgd)
  b.average_weights();          // local_sgd: weights <- allreduced sum / ranks
  b.take_snapshot();            // dasgd: s <- w
  b.apply_average();            // dasgd: w <- avg(s) + (w - s)
  b.outer_gradient(fragment);   // DiLoCo family: Delta_p <- theta_global_p - theta_p
  b.outer_step(fragment);       // outer optimizer on the averaged Delta_p, then the local merge
  b.end_step(step);
  b.drained();  // the end-of-run drain just finished
  b.step_done(step);
};

namespace detail {

// The micro-batches before the step's last: each adds its gradients locally, nothing starts.
template <ScheduleBackend B>
void accumulate_micro_batches(const ScheduleSpec& s, B& b) {
  for (int m = 0; m + 1 < s.accumulation_steps; ++m) b.forward_backward({m, s.accumulation_steps}, {});
}

template <ScheduleBackend B>
void sgd_step(const ScheduleSpec& s, B& b) {
  std::vector<typename B::Collective> buckets;
  auto start_bucket = [&](int bucket) { buckets.push_back(b.start(Payload::gradient_bucket(bucket))); };
  accumulate_micro_batches(s, b);
  const MicroBatch last{s.accumulation_steps - 1, s.accumulation_steps};
  if (s.overlap) {
    b.forward_backward(last, start_bucket);
  } else {
    b.forward_backward(last, [](int) {});  // bucket boundaries still shape backward; nothing starts
    for (int bucket = 0; bucket < b.bucket_count(); ++bucket) start_bucket(bucket);
  }
  for (auto& c : buckets) b.wait(c);  // the update needs every averaged gradient
  b.apply_gradients(true);
}

// The DiLoCo family's fragments in flight: each synchronised fragment's outer-gradient average and
// the step that must apply it.
template <ScheduleBackend B>
class OuterRounds {
 public:
  explicit OuterRounds(const ScheduleSpec& s) : s_(s), rounds_(static_cast<size_t>(s.fragments)) {}

  void step(B& b, long k) {
    if (s_.eager) return eager_step(b, k);
    for (int p = 0; p < s_.fragments; ++p)
      if (rounds_[p].pending && k == rounds_[p].due) apply(b, p);
    for (int p = 0; p < s_.fragments; ++p) {
      if (!is_fragment_sync_step(s_, p, k)) continue;
      b.outer_gradient(p);
      rounds_[p] = {b.start(Payload::outer_gradient(p)), k + s_.delay, true};
      if (s_.delay == 0) apply(b, p);  // DiLoCo: the outer step blocks on the average
    }
  }
  bool pending() const {
    return std::any_of(rounds_.begin(), rounds_.end(), [](const Round& r) { return r.pending; });
  }
  void drain(B& b) {  // in the order the fragments were synchronised
    if (s_.eager) {   // the last round's average arrives; the run ends before a step applies it
      b.wait(rounds_[0].average);
      rounds_[0].pending = false;
      return;
    }
    std::vector<int> order;
    for (int p = 0; p < s_.fragments; ++p)
      if (rounds_[p].pending) order.push_back(p);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return rounds_[x].due < rounds_[y].due; });
    for (int p : order) apply(b, p);
  }

 private:
  struct Round {
    typename B::Collective average{};
    long due = 0;
    bool pending = false;
  };
  // Eager (diloco, one fragment): start this round's allreduce, then the outer step with the
  // previous round's average, which had a whole inner round to arrive (none in the first round:
  // the worker's own outer gradient alone).
  void eager_step(B& b, long k) {
    if (!is_fragment_sync_step(s_, 0, k)) return;
    b.outer_gradient(0);
    auto current = b.start(Payload::outer_gradient(0));
    if (rounds_[0].pending) b.wait(rounds_[0].average);
    b.outer_step(0);
    rounds_[0] = {current, 0, true};
  }
  void apply(B& b, int p) {
    b.wait(rounds_[p].average);  // exposed only if the average has not arrived after d steps
    b.outer_step(p);
    rounds_[p].pending = false;
  }

  const ScheduleSpec& s_;
  std::vector<Round> rounds_;
};

// The local step of a periodic schedule: the worker's own gradient, or its island's average.
template <ScheduleBackend B>
void local_step(const ScheduleSpec& s, B& b) {
  if (has_islands(s)) return sgd_step(s, b);
  accumulate_micro_batches(s, b);
  b.forward_backward({s.accumulation_steps - 1, s.accumulation_steps}, {});
  b.apply_gradients(false);
}

}  // namespace detail

template <ScheduleBackend B>
void run_schedule(const ScheduleSpec& s, long steps, B& b) {
  typename B::Collective average{};  // dasgd: the snapshot average in flight, while `pending`
  bool pending = false;
  long due = 0;  // dasgd: the step that must merge it
  auto merge = [&] {
    b.wait(average);  // exposed only if the average has not arrived after d steps
    b.apply_average();
    pending = false;
  };
  detail::OuterRounds<B> outer_rounds(s);
  for (long k = 1; k <= steps; ++k) {
    b.begin_step(k);
    switch (s.kind) {
      case ScheduleKind::sgd:
        detail::sgd_step(s, b);
        break;
      case ScheduleKind::local_sgd:
        detail::local_step(s, b);
        if (is_averaging_step(s, k)) {
          b.allreduce_blocking(Payload::weights());  // everybody stalls until the average is in
          b.average_weights();
        }
        break;
      case ScheduleKind::dasgd:
        detail::local_step(s, b);
        if (pending && k == due) merge();
        if (is_averaging_step(s, k)) {
          b.take_snapshot();
          average = b.start(Payload::snapshot());
          pending = true;
          due = k + s.delay;
          if (s.delay == 0) merge();  // d = 0 degenerates to local SGD
        }
        break;
      case ScheduleKind::diloco:
      case ScheduleKind::streaming_diloco:
        detail::local_step(s, b);
        outer_rounds.step(b, k);
        break;
    }
    b.end_step(k);
    if (k == steps && (pending || outer_rounds.pending())) {  // nothing is left in flight at the end
      if (pending) merge();
      outer_rounds.drain(b);
      b.drained();
    }
    b.step_done(k);
  }
}

}  // namespace dasim::schedules
