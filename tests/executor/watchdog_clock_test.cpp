// The watchdog's clock: time this process itself did not run is not blamed on the peers.
#include "watchdog_clock.hpp"

#include <gtest/gtest.h>

#include <cstdint>

TEST(WatchdogClock, TheProcessesOwnStopMovesTheDeadlineScheduleNoiseDoesNot) {
  using dasim::executor::deadline_after_tick;
  const int64_t tick = 100'000'000, deadline = 5'000'000'000;
  EXPECT_EQ(deadline_after_tick(deadline, tick, tick), deadline);       // a normal tick
  EXPECT_EQ(deadline_after_tick(deadline, 10 * tick, tick), deadline);  // a late one: noise
  // SIGSTOP for 6 s, then SIGCONT: the 6 s are not the peers'.
  EXPECT_EQ(deadline_after_tick(deadline, 6'000'000'000, tick), deadline + 6'000'000'000 - tick);
  EXPECT_EQ(deadline_after_tick(0, 6'000'000'000, tick), 0);  // no guarded wait: nothing to move
}
