// Simulations run in forked children: what the child returns, and the errors it throws, cross the
// process boundary intact; a child that dies is a RuntimeFailure naming the signal; parallel runs
// return in input order.
#include "runtime/isolated_run.hpp"
#include "common/errors.hpp"
#include "runtime/child_progress.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>

using namespace dasim;

TEST(IsolatedRun, ReturnsWhatTheChildReturned) {
  EXPECT_EQ(runtime::run_isolated([] { return std::string("result \0 with a nul", 19); }),
            std::string("result \0 with a nul", 19));
  EXPECT_EQ(runtime::run_isolated([] { return std::string(1 << 20, 'x'); }).size(),
            1u << 20);  // > a pipe buffer
}

TEST(IsolatedRun, InputErrorsAndRuntimeFailuresKeepTheirKindAndText) {
  try {
    runtime::run_isolated([]() -> std::string { throw InputError("f.json", "a.b", "expected a number"); });
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.json: a.b: expected a number");
  }
  try {
    runtime::run_isolated([]() -> std::string { throw RuntimeFailure("the fabric melted"); });
    FAIL() << "no exception";
  } catch (const RuntimeFailure& e) {
    EXPECT_STREQ(e.what(), "the fabric melted");
  }
}

TEST(IsolatedRun, AChildKilledByASignalIsARuntimeFailureNamingIt) {
  try {
    runtime::run_isolated([]() -> std::string {
      std::raise(SIGKILL);
      return "";
    });
    FAIL() << "no exception";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("signal"), std::string::npos) << e.what();
  }
}

TEST(IsolatedRun, ParallelRunsComeBackInInputOrderAndReportEachOne) {
  std::vector<std::function<std::string()>> bodies;
  for (int i = 0; i < 5; ++i) bodies.push_back([i] { return std::to_string(i * i); });
  std::vector<size_t> done;
  const auto out = runtime::run_isolated_parallel(bodies, 2, [&](size_t i) { done.push_back(i); });
  EXPECT_EQ(out, (std::vector<std::string>{"0", "1", "4", "9", "16"}));
  EXPECT_EQ(done.size(), 5u);
}

TEST(IsolatedRun, TheFirstFailureOfAParallelRunIsRethrown) {
  std::vector<std::function<std::string()>> bodies{
      [] { return std::string("fine"); }, []() -> std::string { throw InputError("bad input in job 1"); }};
  EXPECT_THROW(runtime::run_isolated_parallel(bodies, 2), InputError);
}

TEST(IsolatedRun, AChildThatDiesIsReportedAtOnceNamedAndItsSiblingsKilled) {
  // Job 1 is killed as the OOM killer would (SIGKILL) while job 0 would run for a minute: the run
  // must fail now, name job 1, say what a SIGKILL likely means, and leave no sibling running.
  const std::string pid_file = ::testing::TempDir() + "/sibling.pid";
  std::vector<std::function<std::string()>> bodies{
      [pid_file] {
        std::ofstream(pid_file) << ::getpid();
        ::sleep(60);
        return std::string("late");
      },
      []() -> std::string {
        ::usleep(300000);  // let the sibling start and write its pid
        ::raise(SIGKILL);
        return "";
      }};
  const auto start = std::chrono::steady_clock::now();
  try {
    runtime::run_isolated_parallel(bodies, 2, {}, [](size_t i) { return "job " + std::to_string(i); });
    FAIL() << "no exception";
  } catch (const RuntimeFailure& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("job 1: simulation process died with signal 9", 0), 0u) << what;
    EXPECT_NE(what.find("likely by the out-of-memory killer"), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  pid_t sibling = 0;
  std::ifstream(pid_file) >> sibling;
  ASSERT_GT(sibling, 0);
  EXPECT_NE(::kill(sibling, 0), 0) << "the sibling is still running";
}

TEST(IsolatedRun, RunningChildrenReportHowFarTheyAre) {
  // Two children each say they are 40% through, then take 0.6 s: the parent's wait wakes at
  // least every 200 ms, so it sees 0.4 + 0.4 before either finishes.
  std::vector<std::function<std::string()>> bodies(2, [] {
    runtime::report_child_progress(0.4);
    ::usleep(600000);
    return std::string("done");
  });
  double most = 0;
  const auto out = runtime::run_isolated_parallel(
      bodies, 2, {}, {}, [&](double in_flight) { most = std::max(most, in_flight); });
  EXPECT_EQ(out, (std::vector<std::string>{"done", "done"}));
  EXPECT_DOUBLE_EQ(most, 0.8);
  runtime::report_child_progress(0.9);  // outside a child: nothing to write, nothing happens
}
