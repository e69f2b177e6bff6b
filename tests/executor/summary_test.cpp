// Output arithmetic: steps to target by moving average, medians, the measured result row (slowest
// rank per step, warm-up excluded) and the profile's per-sample FLOP counts, on hand-made numbers.
#include "summary.hpp"
#include "workload/workload_file.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <string>

using namespace dasim::executor;
using dasim::schedules::ScheduleKind;

TEST(Summary, StepsToTargetUsesTheMovingAverage) {
  const std::vector<double> loss{3, 2, 1, 0.5, 0.4, 0.1};
  EXPECT_EQ(steps_to_target(loss, 1.0, 1), 3);
  EXPECT_EQ(steps_to_target(loss, 0.5, 2), 5);  // (0.5 + 0.4) / 2 = 0.45 at step 5; step 4 averages 0.75
  EXPECT_FALSE(steps_to_target(loss, 0.01, 2).has_value());
  EXPECT_FALSE(steps_to_target(loss, 10, 7).has_value());  // window longer than the run
}

TEST(Summary, Median) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
}

TEST(Summary, ResultRowFromTwoRanks) {
  RunDescription run;
  run.options.batch = 10;
  run.options.warmup_steps = 1;
  run.options.target_loss = 1.5;
  run.options.target_window = 1;
  run.options.schedule = {ScheduleKind::dasgd, 1, 1};  // period 1: the window is steps 2 and 3
  run.options.baseline_throughput = 100;
  run.widths = {4, 3};
  run.ranks = 2;
  run.hosts = {"a", "a"};
  // step: loss, wall, compute, comm, exposed, wait (the blocked part of exposed)
  std::vector<std::vector<StepRecord>> per_rank{
      {{2, 9, 9, 0, 0, 0}, {1, 0.1, 0.08, 0.05, 0.02, 0.01}, {1, 0.3, 0.2, 0, 0.1, 0.05}},
      {{2, 9, 9, 0, 0, 0}, {2, 0.2, 0.1, 0.05, 0.04, 0.03}, {1, 0.1, 0.1, 0, 0, 0}}};
  const auto row = make_result_row(run, per_rank);
  EXPECT_EQ(row.workload, "mlp-4x3");
  EXPECT_EQ(row.platform, "a");
  EXPECT_EQ(row.nodes, 1);
  EXPECT_EQ(row.gpus, 2);
  EXPECT_EQ(row.schedule, "dasgd");
  EXPECT_EQ(row.delay, 1);
  EXPECT_EQ(row.source, "measured");
  EXPECT_DOUBLE_EQ(row.iter_time_s, (0.2 + 0.3) / 2);  // slowest rank per step, step 1 excluded
  EXPECT_DOUBLE_EQ(row.samples_per_s, 20 / 0.25);      // 2 ranks x 10 samples per 0.25 s
  EXPECT_DOUBLE_EQ(row.speedup, 0.8);
  EXPECT_DOUBLE_EQ(row.efficiency, 0.4);
  EXPECT_DOUBLE_EQ(row.compute_s, (0.09 + 0.15) / 2);
  EXPECT_DOUBLE_EQ(row.exposed_comm_s, (0.03 + 0.05) / 2);
  EXPECT_DOUBLE_EQ(row.steps_to_target, 2);         // mean loss 1.5 at step 2
  EXPECT_DOUBLE_EQ(row.time_to_target_s, 9 + 0.2);  // the slowest rank's wall time of steps 1 and 2
  EXPECT_EQ(row.extra[1].first, "exposed_wait_s");
  EXPECT_DOUBLE_EQ(std::stod(row.extra[1].second), ((0.01 + 0.03) / 2 + (0.05 + 0) / 2) / 2);
}

TEST(Summary, SpeedupWithoutABaselineIsUnknownNotZero) {
  RunDescription run;
  run.options.batch = 10;
  run.options.warmup_steps = 1;
  run.options.schedule = {ScheduleKind::sgd, 1, 0};
  run.widths = {4, 3};
  run.ranks = 2;
  run.hosts = {"a", "b"};
  std::vector<std::vector<StepRecord>> per_rank{{{2, 9, 9, 0, 0, 0}, {1, 0.1, 0.1, 0, 0, 0}},
                                                {{2, 9, 9, 0, 0, 0}, {1, 0.1, 0.1, 0, 0, 0}}};
  const auto row = make_result_row(run, per_rank);  // no --baseline-throughput
  EXPECT_TRUE(std::isnan(row.speedup));
  EXPECT_TRUE(std::isnan(row.efficiency));
  run.ranks = 1;  // one rank is its own baseline
  run.hosts = {"a"};
  per_rank.pop_back();
  EXPECT_DOUBLE_EQ(make_result_row(run, per_rank).speedup, 1.0);
}

TEST(Summary, ResultRowTimesWholePeriodsAndLeavesTheDrainOut) {
  RunDescription run;
  run.options.batch = 1;
  run.options.warmup_steps = 1;
  run.options.schedule = {ScheduleKind::dasgd, 2, 1};
  run.widths = {4, 3};
  run.ranks = 1;
  run.hosts = {"a"};
  run.drain_s = {0.5};
  // Warm-up 1 -> 2 steps; steps 3..4 are one period; step 5 starts a period it cannot finish.
  std::vector<std::vector<StepRecord>> per_rank{{{1, 9, 9, 0, 0, 0},
                                                 {1, 9, 9, 0, 0, 0},
                                                 {1, 0.1, 0.08, 0, 0.02, 0},
                                                 {1, 0.3, 0.2, 0, 0.1, 0.05},
                                                 {1, 7, 7, 0, 0, 0}}};
  const auto row = make_result_row(run, per_rank);
  EXPECT_DOUBLE_EQ(row.iter_time_s, (0.1 + 0.3) / 2);
  EXPECT_DOUBLE_EQ(row.exposed_comm_s, (0.02 + 0.1) / 2);
  EXPECT_EQ(row.extra[2].first, "drain_s");
  EXPECT_DOUBLE_EQ(std::stod(row.extra[2].second), 0.5);
  per_rank[0].resize(3);  // no whole period after the warm-up
  EXPECT_THROW(make_result_row(run, per_rank), std::invalid_argument);
}

TEST(Summary, ProfileCountsFlopsPerSample) {
  const std::vector<std::vector<double>> fwd{{9, 9}, {1, 2}, {3, 4}}, bwd{{9, 9}, {5, 6}, {7, 8}};
  // Step compute minus the layers: step 1 11 - 14 -> clamped 0 (noise), step 2 25 - 22 = 3.
  const auto p = make_profile({100, 50, 10}, 32, 1, fwd, bwd, {99, 11, 25}, "test");
  EXPECT_EQ(p["measured_batch"], 32);
  EXPECT_EQ(p["layers"][0]["params"], 100 * 50 + 50);
  EXPECT_DOUBLE_EQ(p["layers"][0]["forward_flops"].get<double>(), 2.0 * 100 * 50);
  EXPECT_DOUBLE_EQ(p["layers"][0]["backward_flops"].get<double>(), 2.0 * 100 * 50);  // no input gradient
  EXPECT_DOUBLE_EQ(p["layers"][1]["backward_flops"].get<double>(), 4.0 * 50 * 10);
  EXPECT_DOUBLE_EQ(p["layers"][0]["forward_time_s"].get<double>(), 2.0);   // median of {1, 3}
  EXPECT_DOUBLE_EQ(p["layers"][1]["backward_time_s"].get<double>(), 7.0);  // median of {6, 8}
  EXPECT_DOUBLE_EQ(p["update_time_s"].get<double>(), 1.5);                 // median of {0, 3}
}

TEST(Summary, ProfileIsAWorkloadTheSimulatorLoads) {
  const std::vector<std::vector<double>> fwd{{1e-4, 2e-5}}, bwd{{3e-4, 4e-5}};
  const auto w = dasim::workload::parse_workload(
      nlohmann::json::parse(make_profile({64, 32, 10}, 16, 0, fwd, bwd, {5e-4}, "test").dump()),
      "profile.json");
  ASSERT_EQ(w.layers.size(), 2u);
  EXPECT_EQ(w.measured_batch, 16);
  EXPECT_EQ(w.layers[1].params, 32 * 10 + 10);
  EXPECT_DOUBLE_EQ(*w.layers[0].backward_time_s, 3e-4);
  ASSERT_TRUE(w.layers[0].gemm.has_value());
  EXPECT_EQ(w.layers[0].gemm->k, 64);
  ASSERT_TRUE(w.update_time_s.has_value());
  EXPECT_NEAR(*w.update_time_s, 5e-4 - (1e-4 + 2e-5 + 3e-4 + 4e-5), 1e-15);
}

TEST(Summary, PlanListsTheBucketsTheWeightsAndTheTimedSteps) {
  // 64x256x256x10: layers of 64*256+256 = 16640, 256*256+256 = 65792 and 256*10+10 = 2570 params.
  TrainOptions o;
  o.schedule = {ScheduleKind::dasgd, 4, 1};
  o.schedule.bucket_cap_bytes = 256 * 1024;
  o.steps = 60;
  o.warmup_steps = 5;
  const auto plan = make_plan(o, {64, 256, 256, 10});
  EXPECT_EQ(plan["params"].get<int64_t>(), 85002);
  EXPECT_EQ(plan["weights_bytes"].get<int64_t>(), 85002 * 4);
  // Backward order: layer 2 (10280 B) + layer 1 (263168 B) = 273448 B reaches 256 KiB; layer 0 is left.
  ASSERT_EQ(plan["buckets"].size(), 2u);
  EXPECT_EQ(plan["buckets"][0]["bytes"].get<int64_t>(), 273448);
  EXPECT_EQ(plan["buckets"][0]["layers"], nlohmann::json({1, 2}));
  EXPECT_EQ(plan["buckets"][1]["bytes"].get<int64_t>(), 66560);
  // Warm-up 5 rounded up to 8 steps, then 13 periods of 4: steps 9..60.
  EXPECT_EQ(plan["timed_steps"], nlohmann::json({9, 60}));
}
