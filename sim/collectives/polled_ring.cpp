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
      version_(hosts_.size(), 0),
      mutex_(sg4::Mutex::create()) {
  if (hosts_.size() < 2 || next_.size() != hosts_.size())
    throw std::logic_error("PolledRing needs 2+ ranks on a ring");
  for (size_t r = 0; r < next_.size(); ++r) {
    previous_[size_t(next_[r])] = static_cast<int>(r);
    changed_.push_back(sg4::ConditionVariable::create());
  }
}

void PolledRing::changed(size_t neighbour) {
  std::unique_lock<sg4::Mutex> lock(*mutex_);
  ++version_[neighbour];
  changed_[neighbour]->notify_all();
}

void PolledRing::progress(int rank) {
  const auto me = size_t(rank);
  const auto left = size_t(previous_[me]), right = size_t(next_[me]);
  while (round_[me] < rounds_) {
    const int r = round_[me];
    if (posted_[me] <= r) {
      posted_[me] = r + 1;
      changed(right);  // it may copy this chunk now
    }
    if (copied_[me] <= r) {
      if (posted_[left] <= r) return;  // the left neighbour has not reached this round yet
      // The receiver's copy over the route (shared memory: the rank's own core doing memcpy).
      sg4::Comm::sendto(hosts_[left], hosts_[me], static_cast<uint64_t>(chunk_bytes_));
      copied_[me] = r + 1;
      changed(left);  // its round may end now
    }
    if (copied_[right] <= r) return;  // seen at a later call, once the right neighbour has copied
    if (++round_[me] == rounds_) done_at_[me] = sg4::Engine::get_clock();
  }
}

void PolledRing::wait(int rank) {
  for (;;) {
    // A neighbour's post or copy after this point (while this rank copies, say) sends it round
    // again instead of to sleep.
    const uint64_t seen = version_[size_t(rank)];
    progress(rank);
    if (done(rank)) return;
    std::unique_lock<sg4::Mutex> lock(*mutex_);
    while (version_[size_t(rank)] == seen) changed_[size_t(rank)]->wait(lock);
  }
}

}  // namespace dasim::collectives
