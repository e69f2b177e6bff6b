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
// then end_step(k); after the last step an average still in flight is drained (wait + apply,
// outside every step, reported through drained()); then step_done(k).
#pragma once

#include "schedules/periods.hpp"
#include "schedules/schedule_spec.hpp"

#include <concepts>
#include <functional>
#include <vector>

namespace dasim::schedules {

// What a collective carries.
struct Payload {
  enum class Kind { gradient_bucket, weights, snapshot };
  Kind kind;
  int bucket = -1;  // gradient_bucket: which one, in ready order

  static Payload gradient_bucket(int b) { return {Kind::gradient_bucket, b}; }
  static Payload weights() { return {Kind::weights, -1}; }
  static Payload snapshot() { return {Kind::snapshot, -1}; }
};

// Called by forward_backward when bucket b's gradients are complete. An empty function means the
// schedule starts no collective during backward, so a backend may compute backward in one piece.
using BucketReady = std::function<void(int bucket)>;

template <class B>
concept ScheduleBackend = requires(B b, long step, int bucket, const BucketReady& ready, Payload payload,
                                   typename B::Collective& collective, bool averaged) {
  { b.bucket_count() } -> std::convertible_to<int>;
  b.begin_step(step);
  b.forward_backward(ready);
  { b.start(payload) } -> std::same_as<typename B::Collective>;  // a non-blocking allreduce
  b.wait(collective);
  b.allreduce_blocking(payload);
  b.apply_gradients(averaged);  // averaged: the gradients are the allreduced sum (sgd)
  b.average_weights();          // local_sgd: weights <- allreduced sum / ranks
  b.take_snapshot();            // dasgd: s <- w
  b.apply_average();            // dasgd: w <- avg(s) + (w - s)
  b.end_step(step);
  b.drained();  // the end-of-run drain just finished
  b.step_done(step);
};

namespace detail {

template <ScheduleBackend B>
void sgd_step(const ScheduleSpec& s, B& b) {
  std::vector<typename B::Collective> buckets;
  auto start_bucket = [&](int bucket) { buckets.push_back(b.start(Payload::gradient_bucket(bucket))); };
  if (s.overlap) {
    b.forward_backward(start_bucket);
  } else {
    b.forward_backward([](int) {});  // bucket boundaries still shape backward; nothing starts
    for (int bucket = 0; bucket < b.bucket_count(); ++bucket) start_bucket(bucket);
  }
  for (auto& c : buckets) b.wait(c);  // the update needs every averaged gradient
  b.apply_gradients(true);
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
  for (long k = 1; k <= steps; ++k) {
    b.begin_step(k);
    switch (s.kind) {
      case ScheduleKind::sgd:
        detail::sgd_step(s, b);
        break;
      case ScheduleKind::local_sgd:
        b.forward_backward({});
        b.apply_gradients(false);
        if (is_averaging_step(s, k)) {
          b.allreduce_blocking(Payload::weights());  // everybody stalls until the average is in
          b.average_weights();
        }
        break;
      case ScheduleKind::dasgd:
        b.forward_backward({});
        b.apply_gradients(false);
        if (pending && k == due) merge();
        if (is_averaging_step(s, k)) {
          b.take_snapshot();
          average = b.start(Payload::snapshot());
          pending = true;
          due = k + s.delay;
          if (s.delay == 0) merge();  // d = 0 degenerates to local SGD
        }
        break;
    }
    b.end_step(k);
    if (pending && k == steps) {  // no average is left in flight at the end of the run
      merge();
      b.drained();
    }
    b.step_done(k);
  }
}

}  // namespace dasim::schedules
