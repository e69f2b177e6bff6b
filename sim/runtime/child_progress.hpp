// Progress inside one simulation child (isolated_run.hpp): how far through its work a long
// configuration is, so `dasim run` can say more than "0/1 simulations done" for an hour. The
// parent maps one slot per job in memory shared with its children before forking; a child writes
// its own slot, the parent reads them all at each wake-up of its wait loop.
#pragma once

#include <atomic>
#include <cstddef>

namespace dasim::runtime {

// In a simulation child: the fraction (0..1) of its work done. Outside a child, or in a child
// started without a slot (run_isolated), it does nothing.
void report_child_progress(double fraction);

// Slots shared by a parent and the children it forks (MAP_SHARED | MAP_ANONYMOUS).
class ProgressSlots {
 public:
  explicit ProgressSlots(size_t count);
  ~ProgressSlots();
  ProgressSlots(const ProgressSlots&) = delete;
  ProgressSlots& operator=(const ProgressSlots&) = delete;

  double read(size_t job) const;
  // In the child, right after fork: report_child_progress() writes this job's slot.
  void attach_child(size_t job);

 private:
  std::atomic<double>* slots_ = nullptr;
  size_t count_ = 0;
};

}  // namespace dasim::runtime
