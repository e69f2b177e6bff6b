// The result schema: CSV quoting as RFC 4180 has it, numbers at 9 significant digits, JSON keys in
// the CSV's column order, extra (sweep) columns after the fixed ones.
#include "results/result_row.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace dasim::results;

namespace {

ResultRow row() {
  ResultRow r;
  r.scenario = "s";
  r.platform = "p";
  r.workload = "w";
  r.precision = "tf32";
  r.compute_precision = "fp32";
  r.fusion = "none";
  r.schedule = "dasgd";
  r.tau = 4;
  r.delay = 1;
  r.schedule_detail = "dasgd(tau=4,d=1)";  // a comma: the CSV cell is quoted
  r.collective = "auto";
  r.algorithms_used = "ring/simple+tree/ll";
  r.progress = "async";
  r.granularity = "coarse";
  r.nodes = 2;
  r.gpus = 16;
  r.batch_per_gpu = 32;
  r.iterations = 8;
  r.warmup = 4;
  r.iter_time_s = 1.0 / 3.0;
  r.samples_per_s = 1536;
  r.baseline_gpus = 8;
  r.baseline_samples_per_s = 792;
  r.speedup = 15.5;
  r.efficiency = 0.96875;
  r.compute_s = 0.25;
  r.compute_slowdown_s = 0.03125;
  r.comm_s = 0.125;
  r.exposed_comm_s = 0;
  r.comm_max_s = 0.2;
  r.exposed_comm_max_s = 0.0625;
  r.input_wait_s = 0.0078125;
  r.source = "simulated";
  r.calibration = "cal.json";
  r.calibration_sha256 = "ab12";
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    out.push_back(text.substr(start, end - start));
  return out;
}

}  // namespace

TEST(ResultRow, CsvHasTheHeaderAndOneLinePerRow) {
  const auto out = lines(to_csv({row(), row()}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(
      out[0],
      "scenario,platform,workload,precision,compute_precision,fusion,schedule,tau,delay,schedule_detail,"
      "bucket_cap_bytes,collective,algorithms_used,progress,granularity,nodes,gpus,simulated_nodes,"
      "not_folded_because,batch_per_gpu,iterations,warmup,iter_time_s,samples_per_s,baseline_gpus,baseline_"
      "samples_per_s,speedup,efficiency,compute_s,"
      "compute_slowdown_s,comm_s,exposed_comm_s,comm_max_s,exposed_comm_max_s,input_wait_s,source,"
      "calibration,"
      "calibration_sha256,steps_to_target,time_to_target_s");
  // No bucket cap (a periodic schedule without islands): an empty cell.
  EXPECT_EQ(
      out[1],
      "s,p,w,tf32,fp32,none,dasgd,4,1,\"dasgd(tau=4,d=1)\",,auto,ring/simple+tree/"
      "ll,async,coarse,2,16,0,,32,8,4,0.333333333,1536,8,792,15.5,0.96875,0.25,0.03125,0.125,0,0.2,0.0625,"
      "0.0078125,simulated,cal.json,ab12,,");
}

TEST(ResultRow, AnUnknownNumberIsAnEmptyCellAndJsonNull) {
  auto r = row();
  r.speedup = r.efficiency = std::nan("");
  const auto csv = lines(to_csv({r}));
  EXPECT_NE(csv[1].find(",792,,,0.25,"), std::string::npos) << csv[1];  // baseline, -, -, compute
  const auto j = to_json(r);
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_TRUE(j["efficiency"].is_null());
  EXPECT_DOUBLE_EQ(j["compute_s"].get<double>(), 0.25);
}

TEST(ResultRow, ComputeSlowdownIsNotKnownUnlessSet) {
  ResultRow r = row();
  r.compute_slowdown_s = ResultRow{}.compute_slowdown_s;  // the executor cannot tell it apart
  EXPECT_NE(lines(to_csv({r}))[1].find(",0.25,,0.125,"), std::string::npos);  // compute, -, comm
  EXPECT_TRUE(to_json(r)["compute_slowdown_s"].is_null());
}

TEST(ResultRow, InputWaitIsNotKnownUnlessSet) {
  ResultRow r = row();
  r.input_wait_s = ResultRow{}.input_wait_s;  // the executor's steps include their loading
  EXPECT_NE(lines(to_csv({r}))[1].find(",0.0625,,simulated,"), std::string::npos);  // exposed max, -
  EXPECT_TRUE(to_json(r)["input_wait_s"].is_null());
}

TEST(ResultRow, CsvQuotesCommasQuotesAndNewlines) {
  ResultRow r = row();
  r.calibration = "a.json (datasheet, 0.7 of peak)";
  r.scenario = "say \"hi\"";
  r.platform = "two\nlines";
  const std::string csv = to_csv({r});
  EXPECT_NE(csv.find("\"say \"\"hi\"\"\",\"two\nlines\","), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"a.json (datasheet, 0.7 of peak)\",ab12,,\n"), std::string::npos) << csv;
}

TEST(ResultRow, ExtraColumnsFollowTheFixedOnes) {
  ResultRow r = row();
  r.extra = {{"inter_node_bandwidth_Bps", "1.25e+10"}};
  const auto out = lines(to_csv({r}));
  EXPECT_TRUE(
      out[0].ends_with(",calibration_sha256,steps_to_target,time_to_target_s,inter_node_bandwidth_Bps"));
  EXPECT_TRUE(out[1].ends_with(",ab12,,,1.25e+10"));  // no convergence model: empty, not 0
}

TEST(ResultRow, JsonKeysFollowTheCsvColumns) {
  ResultRow r = row();
  r.extra = {{"x", "1"}};
  const auto j = to_json(r);
  std::vector<std::string> keys;
  for (const auto& [key, _] : j.items()) keys.push_back(key);
  auto expected = result_columns();
  expected.push_back("x");
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(j["tau"].get<int>(), 4);                            // integers stay integers
  EXPECT_DOUBLE_EQ(j["iter_time_s"].get<double>(), 1.0 / 3.0);  // JSON keeps full precision
  EXPECT_EQ(j["x"].get<int>(), 1);  // an extra column's number is a number, not "1"
}

TEST(ResultRow, ExtraColumnsInJsonAreNumbersNullOrText) {
  // dasim-train writes "consistency_checks"-style counts as "87" and "" for what it did not record.
  ResultRow r = row();
  r.extra = {{"checks", "87"},  {"final_loss", "0.25"},  {"bw", "1.25e+10"},
             {"unreached", ""}, {"name", "ring/simple"}, {"nan_text", "nan"}};
  const auto j = to_json(r);
  EXPECT_TRUE(j["checks"].is_number_integer());
  EXPECT_EQ(j["checks"].get<int>(), 87);
  EXPECT_DOUBLE_EQ(j["final_loss"].get<double>(), 0.25);
  EXPECT_TRUE(j["bw"].is_number_float());
  EXPECT_DOUBLE_EQ(j["bw"].get<double>(), 1.25e10);
  EXPECT_TRUE(j["unreached"].is_null());
  EXPECT_EQ(j["name"].get<std::string>(), "ring/simple");
  EXPECT_EQ(j["nan_text"].get<std::string>(), "nan");  // not a finite number: kept as written
  // The CSV keeps the cells as written.
  EXPECT_TRUE(lines(to_csv({r}))[1].ends_with(",87,0.25,1.25e+10,,ring/simple,nan"));
}
