// --check-consistency: compares a hash of every rank's weights with what the schedule implies.
#include "consistency.hpp"

#include "comm.hpp"
#include "common/errors.hpp"
#include "update_rules.hpp"

#include <fmt/format.h>

namespace dasim::executor {
namespace {

// Whether all ranks must hold bit-identical weights after `step` under the schedule.
// DaSGD adds each rank's local progress back after a merge, so its ranks agree only when no progress
// was made since the snapshot: d = 0, or a snapshot taken at the last step and merged at once.
// The DiLoCo family: a rank's weights equal the outer weights (the same on every rank) right after
// an outer step that discards the local progress (alpha = 0) of the whole model (one fragment):
// at k0 + d for an outer gradient of k0 (a multiple of H), or at the last step for one drained then.
bool diloco_identical(const schedules::ScheduleSpec& s, long step, long last_step) {
  // Eager outer steps apply each worker's own fresh outer gradient: the outer weights differ.
  if (s.fragments != 1 || s.alpha != 0 || s.eager) return false;
  const long H = s.tau, d = s.delay;
  if (step >= H + d && (step - d) % H == 0) return true;
  return step == last_step && d > 0 && step >= H && step % H < d;
}

bool expect_identical(const schedules::ScheduleSpec& s, long step, long last_step, int ranks) {
  if (ranks == 1 || s.kind == schedules::ScheduleKind::sgd) return true;
  // One island of every rank: sgd inside it every step, so the ranks never drift apart.
  if (has_islands(s) && s.island_gpus >= ranks) return true;
  if (s.kind == schedules::ScheduleKind::local_sgd) return is_averaging_step(s, step);
  if (is_diloco_family(s)) return diloco_identical(s, step, last_step);
  return is_averaging_step(s, step) && (s.delay == 0 || step == last_step);
}

}  // namespace

void check_weights_consistency(const schedules::ScheduleSpec& s, long step, long last_step,
                               const std::vector<float>& w, MPI_Comm comm, int ranks) {
  const uint64_t h = weights_hash(w);
  uint64_t local[2] = {h, ~h}, global[2] = {0, 0};
  {
    WatchdogGuard guard("consistency allreduce");
    mpi_check(MPI_Allreduce(local, global, 2, MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce (consistency)");
  }
  const bool identical = global[0] == ~global[1];  // max hash == min hash
  const bool expected = expect_identical(s, step, last_step, ranks);
  if (identical != expected)
    throw RuntimeFailure(
        fmt::format("consistency check failed at step {}: {} weights are {} across ranks, the {} "
                    "schedule implies they are {}",
                    step, to_string(s.kind), identical ? "identical" : "different", to_string(s.kind),
                    expected ? "identical" : "different"));
}

}  // namespace dasim::executor
