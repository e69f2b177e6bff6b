#include "runtime/child_progress.hpp"

#include "common/errors.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

namespace dasim::runtime {

// A plain store and load across processes is only sound for a lock-free atomic.
static_assert(std::atomic<double>::is_always_lock_free);

namespace {
std::atomic<double>* child_slot = nullptr;  // set in a child by ProgressSlots::attach_child
}  // namespace

void report_child_progress(double fraction) {
  if (child_slot) child_slot->store(std::clamp(fraction, 0.0, 1.0), std::memory_order_relaxed);
}

ProgressSlots::ProgressSlots(size_t count) : count_(count) {
  if (count == 0) return;
  void* memory = ::mmap(nullptr, count * sizeof(std::atomic<double>), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw RuntimeFailure(std::string("mmap: ") + std::strerror(errno));
  slots_ = static_cast<std::atomic<double>*>(memory);
  for (size_t i = 0; i < count; ++i) new (&slots_[i]) std::atomic<double>(0.0);
}

ProgressSlots::~ProgressSlots() {
  if (slots_) ::munmap(slots_, count_ * sizeof(std::atomic<double>));
}

double ProgressSlots::read(size_t job) const {
  return job < count_ ? slots_[job].load(std::memory_order_relaxed) : 0.0;
}

void ProgressSlots::attach_child(size_t job) {
  if (job < count_) child_slot = &slots_[job];
}

}  // namespace dasim::runtime
