#include "collectives/part_runners.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <utility>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {

PartRunners::PartRunners(std::vector<sg4::Host*> hosts_by_rank)
    : hosts_(std::move(hosts_by_rank)), idle_(hosts_.size()), created_(hosts_.size(), 0) {}

void PartRunners::run(int rank, std::function<void()> part) {
  auto& idle = idle_[size_t(rank)];
  if (idle.empty()) {
    auto runner = std::make_shared<Runner>();
    runner->part = std::move(part);
    ++created_[size_t(rank)];
    start_runner(rank, std::move(runner));
    return;
  }
  // Last in, first out: the runner that went idle most recently, whose stack is likeliest cached.
  std::shared_ptr<Runner> runner = std::move(idle.back());
  idle.pop_back();
  runner->part = std::move(part);
  runner->wake->release();
}

void PartRunners::start_runner(int rank, std::shared_ptr<Runner> runner) {
  sg4::Actor::create("coll", hosts_[size_t(rank)], [this, rank, runner] {
    sg4::Actor::self()->daemonize();
    for (;;) {
      std::function<void()> part = std::move(runner->part);
      runner->part = nullptr;
      part();
      idle_[size_t(rank)].push_back(runner);
      runner->wake->acquire();
    }
  });
}

}  // namespace dasim::collectives
