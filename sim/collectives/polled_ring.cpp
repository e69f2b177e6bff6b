#include "collectives/polled_ring.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <mutex>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {

PolledRing::PolledRing(std::vector<sg4::Host*> hosts, std::vector<int> next, double bytes)
    : hosts_(std::move(hosts)),
      next_(std::move(next)),
      previous_(next_.size(), -1),
      rounds_(2 * (static_cast<int>(hosts_.size()) - 1)),
      bytes_(bytes),
      chunk_bytes_(bytes / static_cast<double>(hosts_.size())),
      round_(hosts_.size(), 0),
      posted_(hosts_.size(), 0),
      copied_(hosts_.size(), 0),
      done_at_(hosts_.size(), -1),
      mutex_(sg4::Mutex::create()),
      changed_(sg4::ConditionVariable::create()) {
  if (hosts_.size() < 2 || next_.size() != hosts_.size())
    throw std::logic_error("PolledRing needs 2+ ranks on a ring");
  for (size_t r = 0; r < next_.size(); ++r) previous_[size_t(next_[r])] = static_cast<int>(r);
}

void PolledRing::changed() {
  std::unique_lock<sg4::Mutex> lock(*mutex_);
  ++version_;
  changed_->notify_all();
}

void PolledRing::progress(int rank) {
  const auto me = size_t(rank);
  const auto left = size_t(previous_[me]), right = size_t(next_[me]);
  while (round_[me] < rounds_) {
    const int r = round_[me];
    if (posted_[me] <= r) {
      posted_[me] = r + 1;
      changed();
    }
    if (copied_[me] <= r) {
      if (posted_[left] <= r) return;  // the left neighbour has not reached this round yet
      // The receiver's copy over the route (shared memory: the rank's own core doing memcpy).
      sg4::Comm::sendto(hosts_[left], hosts_[me], static_cast<uint64_t>(chunk_bytes_));
      copied_[me] = r + 1;
      changed();
    }
    if (copied_[right] <= r) return;  // seen at a later call, once the right neighbour has copied
    if (++round_[me] == rounds_) done_at_[me] = sg4::Engine::get_clock();
  }
}

void PolledRing::wait(int rank) {
  for (;;) {
    // Any post or copy after this point (a neighbour's while this rank copies, or its own) sends
    // it round again instead of to sleep.
    const uint64_t seen = version_;
    progress(rank);
    if (done(rank)) return;
    std::unique_lock<sg4::Mutex> lock(*mutex_);
    while (version_ == seen) changed_->wait(lock);
  }
}

}  // namespace dasim::collectives
