// The per-schedule step loop over MPI with its timing (see trainer.hpp).
#include "trainer.hpp"

#include "comm.hpp"
#include "common/errors.hpp"
#include "consistency.hpp"
#include "step_timing.hpp"
#include "update_rules.hpp"

#include <fmt/format.h>

namespace dasim::executor {

TrainOutput train(const TrainOptions& options, Mlp& model, const Dataset& data, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const Schedule& sched = options.schedule;
  TrainOutput out;
  std::vector<int64_t> layer_params;
  for (int l = 0; l < model.layers(); ++l) layer_params.push_back(model.layer_params(l));
  if (sched.kind == ScheduleKind::sgd) out.buckets = plan_buckets(layer_params, options.bucket_bytes);
  std::vector<int> bucket_ending_at(model.layers(), -1);
  for (size_t b = 0; b < out.buckets.size(); ++b)
    bucket_ending_at[out.buckets[b].first_layer] = static_cast<int>(b);

  std::vector<MPI_Request> requests(out.buckets.size() + 1, MPI_REQUEST_NULL);  // last: dasgd snapshot
  MPI_Request& snapshot_request = requests.back();
  std::vector<float> snapshot, snapshot_sum(model.param_count());
  bool pending = false;
  long due = 0;
  InFlightClock clock;
  double mpi_call_s = 0, wait_s = 0;  // this step: inside non-blocking calls, blocked in waits

  auto poll = [&] {
    const double t0 = wall_now_s();
    for (auto& r : requests) {
      if (r == MPI_REQUEST_NULL) continue;
      int done = 0;
      mpi_check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) clock.completed(wall_now_s());
    }
    mpi_call_s += wall_now_s() - t0;
  };
  auto wait = [&](MPI_Request& r, const char* what) {
    if (r == MPI_REQUEST_NULL) return;
    const double t0 = wall_now_s();
    {
      WatchdogGuard guard(what);
      mpi_check(MPI_Wait(&r, MPI_STATUS_IGNORE), what);
    }
    const double t1 = wall_now_s();
    clock.completed(t1);
    wait_s += t1 - t0;
  };
  auto start_bucket = [&](int layer) {
    const int b = bucket_ending_at[layer];
    if (b < 0) return;
    const double t0 = wall_now_s();
    const Bucket& bucket = out.buckets[b];
    mpi_check(MPI_Iallreduce(MPI_IN_PLACE, model.grads().data() + bucket.offset,
                             static_cast<int>(bucket.count), MPI_FLOAT, MPI_SUM, comm, &requests[b]),
              "MPI_Iallreduce (gradient bucket)");
    clock.started(t0);
    mpi_call_s += wall_now_s() - t0;
  };
  auto merge = [&] {
    wait(snapshot_request, "MPI_Wait (dasgd snapshot average)");
    dasgd_merge(model.weights(), snapshot, snapshot_sum, ranks);
    pending = false;
  };

  MlpHooks hooks;
  hooks.poll = poll;
  if (sched.kind == ScheduleKind::sgd) hooks.backward_done = start_bucket;
  std::vector<float> x;
  std::vector<int32_t> y;

  const double loop_start_s = wall_now_s();
  for (long k = 1; k <= options.steps; ++k) {
    const double t_start = wall_now_s();
    mpi_call_s = wait_s = 0;
    fill_batch(data, k - 1, options.batch, x, y);
    const float loss = model.forward_backward(x.data(), y.data(), options.batch, hooks);

    if (sched.kind == ScheduleKind::sgd) {
      for (size_t b = 0; b < out.buckets.size(); ++b) wait(requests[b], "MPI_Wait (gradient bucket)");
      sgd_apply(model.weights(), model.grads(), options.lr, ranks);
    } else {
      sgd_apply(model.weights(), model.grads(), options.lr, 1);
      if (sched.kind == ScheduleKind::local_sgd && is_averaging_step(sched, k)) {
        const double t0 = wall_now_s();
        clock.started(t0);
        {
          WatchdogGuard guard("MPI_Allreduce (local_sgd weight average)");
          mpi_check(MPI_Allreduce(MPI_IN_PLACE, model.weights().data(), static_cast<int>(model.param_count()),
                                  MPI_FLOAT, MPI_SUM, comm),
                    "MPI_Allreduce (local_sgd weight average)");
        }
        const double t1 = wall_now_s();
        clock.completed(t1);
        wait_s += t1 - t0;
        average_from_sum(model.weights(), model.weights(), ranks);
      }
      if (sched.kind == ScheduleKind::dasgd) {
        if (pending && k == due) merge();
        if (is_averaging_step(sched, k)) {
          snapshot = model.weights();
          const double t0 = wall_now_s();
          mpi_check(
              MPI_Iallreduce(snapshot.data(), snapshot_sum.data(), static_cast<int>(model.param_count()),
                             MPI_FLOAT, MPI_SUM, comm, &snapshot_request),
              "MPI_Iallreduce (dasgd snapshot)");
          clock.started(t0);
          mpi_call_s += wall_now_s() - t0;
          pending = true;
          due = k + sched.delay;
          if (sched.delay == 0) merge();
        }
      }
    }
    const double t_end = wall_now_s();
    const StepRecord rec = finish_step(loss, {t_start, t_end, clock.take(t_end), wait_s, mpi_call_s});
    out.steps.push_back(rec);
    if (pending && k == options.steps) {  // do not leave an average in flight at the end
      merge();
      out.drain_s = wall_now_s() - t_end;
    }
    if (!options.profile.empty()) {  // per-layer times are only kept for --profile
      out.forward_s.push_back(model.forward_times_s());
      out.backward_s.push_back(model.backward_times_s());
    }

    if (options.check_consistency) {
      check_weights_consistency(sched, k, options.steps, model.weights(), comm, ranks);
      ++out.consistency_checks;
    }
    report_progress(options, rank, k, rec, loop_start_s);
  }
  return out;
}

}  // namespace dasim::executor
