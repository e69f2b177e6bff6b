// The Chrome / Perfetto trace: one process per node and one named thread per GPU, collectives on
// rows of their GPU (as many as overlap), times in microseconds.
#include "report/chrome_trace.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace dasim;

TEST(ChromeTrace, RanksBecomeNodeProcessesAndGpuThreads) {
  // Rank 9 on 8 GPUs per node is GPU 1 of node 1.
  const std::vector<engine::RankTrace> trace{
      {9,
       {{"forward", "compute", 0.5, 0.75, 0, {}},
        {"allreduce bucket 2", "comm", 0.6, 0.7, 25e6, "ring/simple"}}}};
  const auto all = report::chrome_trace_events(trace, 8);
  // Metadata first: the node's process name, then each row's name and sort index.
  ASSERT_EQ(all.size(), 7u);
  EXPECT_EQ(all[0]["name"], "process_name");
  EXPECT_EQ(all[0]["pid"], 1);
  EXPECT_EQ(all[0]["args"]["name"], "node 1");
  EXPECT_EQ(all[1]["args"]["name"], "rank 9 (n1g1)");
  EXPECT_EQ(all[1]["pid"], 1);
  EXPECT_EQ(all[1]["tid"], 1);
  EXPECT_EQ(all[2]["name"], "thread_sort_index");
  EXPECT_EQ(all[2]["args"]["sort_index"], 100);  // GPU 1's compute row
  EXPECT_EQ(all[3]["args"]["name"], "rank 9 collectives");
  EXPECT_EQ(all[3]["tid"], 1001);
  EXPECT_EQ(all[4]["args"]["sort_index"], 101);  // right below it
  const std::vector<nlohmann::json> events(all.begin() + 5, all.end());
  EXPECT_EQ(events[0]["name"], "forward");
  EXPECT_EQ(events[0]["tid"], 1);
  EXPECT_DOUBLE_EQ(events[0]["ts"].get<double>(), 0.5e6);
  EXPECT_DOUBLE_EQ(events[0]["dur"].get<double>(), 0.25e6);
  EXPECT_EQ(events[1]["cat"], "comm");
  EXPECT_EQ(events[1]["tid"], 1001);                         // the GPU's collective row
  EXPECT_EQ(events[1]["args"]["algorithm"], "ring/simple");  // what auto chose for this one
  EXPECT_DOUBLE_EQ(events[1]["args"]["bytes"].get<double>(), 25e6);
  EXPECT_FALSE(events[0].contains("args"));
}

TEST(ChromeTrace, CollectivesThatOverlapGoToSeparateRowsSoNoSliceOverlapsAnother) {
  // Perfetto draws partly overlapping slices of one track wrongly. Bucket 1 runs 0.60-0.70,
  // bucket 2 starts at 0.65 (second row), bucket 3 at 0.75 (the first row is free again).
  const std::vector<engine::RankTrace> trace{
      {0,
       {{"allreduce bucket 2", "comm", 0.65, 0.80, 1, "ring/simple"},
        {"allreduce bucket 1", "comm", 0.60, 0.70, 1, "ring/simple"},
        {"allreduce bucket 3", "comm", 0.75, 0.90, 1, "ring/simple"}}}};
  const auto events = report::chrome_trace_events(trace, 8);
  std::map<std::string, int> tid;
  std::map<int, std::string> row_names;
  for (const auto& e : events) {
    if (e["ph"] == "X") tid[e["name"].get<std::string>()] = e["tid"].get<int>();
    if (e["name"] == "thread_name") row_names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
  }
  EXPECT_EQ(tid["allreduce bucket 1"], 1000);
  EXPECT_EQ(tid["allreduce bucket 2"], 2000);
  EXPECT_EQ(tid["allreduce bucket 3"], 1000);
  EXPECT_EQ(row_names[2000], "rank 0 collectives (2)");
}
