// The Chrome / Perfetto trace: one process per node and one named thread per GPU, collectives on
// a second thread of their GPU, times in microseconds.
#include "report/chrome_trace.hpp"

#include <gtest/gtest.h>

using namespace dasim;

TEST(ChromeTrace, RanksBecomeNodeProcessesAndGpuThreads) {
  // Rank 9 on 8 GPUs per node is GPU 1 of node 1.
  const std::vector<engine::RankTrace> trace{
      {9,
       {{"forward", "compute", 0.5, 0.75, 0, {}},
        {"allreduce bucket 2", "comm", 0.6, 0.7, 25e6, "ring/simple"}}}};
  const auto events = report::chrome_trace_events(trace, 8);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["ph"], "M");
  EXPECT_EQ(events[0]["args"]["name"], "rank 9 (n1g1)");
  EXPECT_EQ(events[0]["pid"], 1);
  EXPECT_EQ(events[0]["tid"], 1);
  EXPECT_EQ(events[1]["name"], "forward");
  EXPECT_EQ(events[1]["tid"], 1);
  EXPECT_DOUBLE_EQ(events[1]["ts"].get<double>(), 0.5e6);
  EXPECT_DOUBLE_EQ(events[1]["dur"].get<double>(), 0.25e6);
  EXPECT_EQ(events[2]["cat"], "comm");
  EXPECT_EQ(events[2]["tid"], 1001);                         // the GPU's collective row
  EXPECT_EQ(events[2]["args"]["algorithm"], "ring/simple");  // what auto chose for this one
  EXPECT_DOUBLE_EQ(events[2]["args"]["bytes"].get<double>(), 25e6);
  EXPECT_FALSE(events[1].contains("args"));
}
