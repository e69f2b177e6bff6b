// The summary table `dasim run` prints: a header and one line per row with iteration time in ms,
// speedup, efficiency and the breakdown in ms (golden text, as users read it).
#include "report/summary_table.hpp"

#include <gtest/gtest.h>

using namespace dasim;

TEST(SummaryTable, OneLinePerRowInMilliseconds) {
  results::ResultRow r;
  r.workload = "resnet50";
  r.platform = "flat-100gbe-64";
  r.schedule = "dasgd";
  r.tau = 4;
  r.delay = 1;
  r.gpus = 8;
  r.iter_time_s = 0.11181;
  r.speedup = 7.8;
  r.efficiency = 0.978;
  r.compute_s = 0.10936;
  r.comm_s = 0.01441;
  r.exposed_comm_s = 0.00246;
  results::ResultRow second = r;
  second.gpus = 16;
  const std::string table = report::summary_table({r, second});
  const auto newline = table.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_EQ(table.substr(0, newline),
            "   # workload     platform         schedule             gpus    iter_ms   speedup    eff  "
            "compute_ms     "
            "comm_ms  exposed_ms");
  EXPECT_NE(
      table.find(
          "   0 resnet50     flat-100gbe-64   dasgd(t=4,d=1)          8     111.81       7.8  0.978      "
          "109.36       14.41        2.46"),
      std::string::npos)
      << table;
  // The second row is configuration 1: the number `--trace` takes.
  EXPECT_NE(table.find("   1 resnet50     flat-100gbe-64   dasgd(t=4,d=1)         16"), std::string::npos)
      << table;
}

TEST(SummaryTable, ShowsTheComputeSlowdownWhenARowHasOne) {
  results::ResultRow r;
  r.workload = "resnet50";
  r.platform = "flat-100gbe-64";
  r.schedule = "sgd";
  r.gpus = 8;
  r.iter_time_s = 0.112;
  r.speedup = 7.8;
  r.efficiency = 0.976;
  r.compute_s = 0.111;
  r.compute_slowdown_s = 0.0015;
  r.comm_s = 0.015;
  r.exposed_comm_s = 0.001;
  results::ResultRow none = r;  // not known (NaN) or none: no column, 0.00 beside a row with one
  none.compute_slowdown_s = results::ResultRow{}.compute_slowdown_s;
  EXPECT_EQ(report::summary_table({none}).find("slowdown_ms"), std::string::npos);
  const std::string table = report::summary_table({r, none});
  EXPECT_NE(table.find("compute_ms slowdown_ms     comm_ms  exposed_ms\n"), std::string::npos) << table;
  EXPECT_NE(table.find("     111.00        1.50       15.00        1.00\n"), std::string::npos) << table;
  EXPECT_NE(table.find("     111.00        0.00       15.00        1.00\n"), std::string::npos) << table;
}

TEST(SummaryTable, SweepValuesReadAsPeopleQuoteThemAndListsSayWhichRowIsWhich) {
  results::ResultRow r;
  r.workload = "resnet50";
  r.platform = "p";
  r.schedule = "sgd";
  r.precision = "fp32";
  r.batch_per_gpu = 32;
  r.extra = {{"inter_node_bandwidth_Bps", "1.25e+10"}};  // 12.5 GB/s = 100 Gb/s
  auto nic = r;
  nic.extra = {{"nic_bandwidth_Bps", "3125000000"}};  // 25 Gb/s
  auto latency = r;
  latency.extra = {{"fabric_latency_s", "2e-06"}};
  auto other = r;
  other.extra = {{"oversubscription", "2"}};
  other.precision = "amp";
  other.batch_per_gpu = 64;
  const std::string table = report::summary_table({r, nic, latency, other}, {3, 7, 8, 9});
  EXPECT_NE(table.find("   3 resnet50     p                sgd 100 Gb/s fp32 b=32"), std::string::npos)
      << table;
  EXPECT_NE(table.find("   7 resnet50     p                sgd nic 25 Gb/s fp32 b=32"), std::string::npos)
      << table;
  EXPECT_NE(table.find("   8 resnet50     p                sgd fabric latency 2 us fp32 b=32"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("   9 resnet50     p                sgd oversubscription=2 amp b=64"),
            std::string::npos)
      << table;
}
