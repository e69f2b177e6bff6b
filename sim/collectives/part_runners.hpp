// Actors that run collectives' parts, kept per rank and reused.
//
// Each rank runs every collective as one or more parts (a tree's flows, a ring channel's phases),
// each in an actor of its own so the caller goes on computing. Creating an actor per part was a
// large share of a whole sync SGD run: an actor's 32 KiB stack is allocated and zeroed each time
// (SimGrid's SwappedContext), and VGG-16 on 128 DGX-1 nodes runs about 200 allreduces x 1,024
// ranks. A runner that finishes its part waits for the next one of its rank instead; a rank has as
// many runners as it ever had parts running at once, so memory peaks where it did before.
//
// Runners are daemons: once the last worker ends, SimGrid kills the idle ones (and any part still
// in flight that no worker waits for), so a finished simulation does not look deadlocked.
#pragma once

#include <simgrid/s4u/Semaphore.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace dasim::collectives {

class PartRunners {
 public:
  explicit PartRunners(std::vector<simgrid::s4u::Host*> hosts_by_rank);
  // Runs `part` from now on in one of `rank`'s runners, an idle one or, when all are busy, a new
  // one on the rank's host. Must be called from an actor; returns at once.
  void run(int rank, std::function<void()> part);
  // How many runners `rank` has (the most parts it has run at once).
  int runners(int rank) const { return created_[size_t(rank)]; }

 private:
  struct Runner {
    simgrid::s4u::SemaphorePtr wake = simgrid::s4u::Semaphore::create(0);
    std::function<void()> part;
  };
  void start_runner(int rank, std::shared_ptr<Runner> runner);

  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<std::vector<std::shared_ptr<Runner>>> idle_;  // per rank
  std::vector<int> created_;                                // per rank
};

}  // namespace dasim::collectives
