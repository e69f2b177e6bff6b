// PartRunners: a rank's collective parts run in actors that are reused, one per part running at
// once, and that do not keep a finished simulation alive. Times are sleeps, so every expected
// date is a sum of them.
#include "collectives/part_runners.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "runtime/simulation.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <sstream>
#include <string>

namespace {

namespace sg4 = simgrid::s4u;
using namespace dasim;

// Builds a 1-node platform and runs `rank0` as rank 0's caller; returns what it writes.
template <class Body>
std::string simulate(Body rank0) {
  return runtime::run_isolated([&] {
    auto spec = platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/flat-100gbe-64.json", 1);
    runtime::Simulation sim(spec);
    collectives::PartRunners runners(sim.platform().gpus);
    std::ostringstream out;
    sg4::Actor::create("caller", sim.platform().gpus[0], [&] { rank0(runners, out); });
    sim.engine().run();
    out << " clock " << sg4::Engine::get_clock();
    return out.str();
  });
}

// A part that sleeps `seconds`, then notes when it ended and releases `done`.
auto sleeping_part(double seconds, double& ended, sg4::SemaphorePtr done) {
  return [seconds, &ended, done] {
    sg4::this_actor::sleep_for(seconds);
    ended = sg4::Engine::get_clock();
    done->release();
  };
}

// Parts one after the other: the second runs in the first's runner, from when it is started.
TEST(PartRunners, PartsOneAfterTheOtherShareOneRunner) {
  const std::string out = simulate([](collectives::PartRunners& runners, std::ostringstream& out) {
    auto done = sg4::Semaphore::create(0);
    double first = 0, second = 0;
    runners.run(0, sleeping_part(1.0, first, done));
    done->acquire();
    sg4::this_actor::sleep_for(0.5);
    runners.run(0, sleeping_part(2.0, second, done));
    done->acquire();
    out << first << ' ' << second << " runners " << runners.runners(0);
  });
  EXPECT_EQ(out, "1 3.5 runners 1 clock 3.5");
}

// Two parts at once need two runners; a third, started once both are idle, reuses one of them.
TEST(PartRunners, PartsAtOnceGetARunnerEach) {
  const std::string out = simulate([](collectives::PartRunners& runners, std::ostringstream& out) {
    auto done = sg4::Semaphore::create(0);
    double a = 0, b = 0, c = 0;
    runners.run(0, sleeping_part(1.0, a, done));
    runners.run(0, sleeping_part(2.0, b, done));
    done->acquire();
    done->acquire();
    runners.run(0, sleeping_part(1.0, c, done));
    done->acquire();
    out << a << ' ' << b << ' ' << c << " runners " << runners.runners(0);
  });
  EXPECT_EQ(out, "1 2 3 runners 2 clock 3");
}

// When the last caller ends, idle runners and a part nobody waits for end with it: the
// simulation stops at the caller's end (1 s), not at the part's (10 s), and is not deadlocked.
TEST(PartRunners, RunnersDoNotOutliveTheCallers) {
  const std::string out = simulate([](collectives::PartRunners& runners, std::ostringstream& out) {
    auto done = sg4::Semaphore::create(0);
    double quick = 0, never = 0;
    runners.run(0, sleeping_part(0.5, quick, done));
    done->acquire();
    runners.run(0, sleeping_part(10.0, never, done));
    runners.run(0, sleeping_part(10.0, never, done));
    sg4::this_actor::sleep_for(0.5);
    out << quick << " runners " << runners.runners(0);
  });
  EXPECT_EQ(out, "0.5 runners 2 clock 1");
}

}  // namespace
