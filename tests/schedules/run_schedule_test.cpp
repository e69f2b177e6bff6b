// The one schedule engine, driven with a backend that records every operation: the sequences are
// the definitions of docs/algorithms.md written out by hand for a few steps, so the simulator and
// both trainers (which only implement the operations) run exactly these schedules.
#include "schedules/run_schedule.hpp"
#include "schedules/periods.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace dasim::schedules;

namespace {

// Buckets become ready during backward in order 0, 1, ..., as a real backward produces them.
struct RecordingBackend {
  using Collective = std::string;
  int buckets = 2;
  std::vector<std::string> log;

  int bucket_count() const { return buckets; }
  void begin_step(long k) { log.push_back("step " + std::to_string(k)); }
  void forward_backward(MicroBatch m, const BucketReady& ready) {
    log.push_back(m.count == 1 ? std::string("fwd+bwd")
                               : "fwd+bwd " + std::to_string(m.index + 1) + "/" + std::to_string(m.count) +
                                     (m.adds_to_gradients() ? " adds" : ""));
    if (ready)
      for (int b = 0; b < buckets; ++b) ready(b);
  }
  Collective start(Payload p) {
    const std::string name = p.kind == Payload::Kind::gradient_bucket  ? "bucket " + std::to_string(p.bucket)
                             : p.kind == Payload::Kind::snapshot       ? "snapshot"
                             : p.kind == Payload::Kind::outer_gradient ? "outer " + std::to_string(p.bucket)
                                                                       : "weights";
    log.push_back("start " + name);
    return name;
  }
  void wait(const Collective& c) { log.push_back("wait " + c); }
  void allreduce_blocking(Payload) { log.push_back("allreduce weights"); }
  void apply_gradients(bool averaged) { log.push_back(averaged ? "update averaged" : "update local"); }
  void average_weights() { log.push_back("average weights"); }
  void take_snapshot() { log.push_back("snapshot"); }
  void apply_average() { log.push_back("apply average"); }
  void outer_gradient(int p) { log.push_back("outer gradient " + std::to_string(p)); }
  void outer_step(int p) { log.push_back("outer step " + std::to_string(p)); }
  void end_step(long) { log.push_back("end"); }
  void drained() { log.push_back("drained"); }
  void step_done(long) {}
};

std::vector<std::string> run(const ScheduleSpec& s, long steps, int buckets = 2) {
  RecordingBackend b;
  b.buckets = buckets;
  run_schedule(s, steps, b);
  return b.log;
}

using Log = std::vector<std::string>;

}  // namespace

TEST(RunSchedule, SgdStartsEachBucketDuringBackwardAndUpdatesAfterAllArrive) {
  EXPECT_EQ(run({ScheduleKind::sgd, 1, 0}, 1),
            (Log{"step 1", "fwd+bwd", "start bucket 0", "start bucket 1", "wait bucket 0", "wait bucket 1",
                 "update averaged", "end"}));
}

TEST(RunSchedule, SgdWithoutOverlapStartsTheBucketsAfterBackward) {
  // Backward still hears where buckets end (a backend may shape its compute by them), but the
  // callback starts nothing: every bucket starts after backward.
  ScheduleSpec s{ScheduleKind::sgd, 1, 0};
  s.overlap = false;
  EXPECT_EQ(run(s, 1), (Log{"step 1", "fwd+bwd", "start bucket 0", "start bucket 1", "wait bucket 0",
                            "wait bucket 1", "update averaged", "end"}));
}

TEST(RunSchedule, SgdWithAccumulationStartsTheBucketsOnlyAfterTheLastMicroBatch) {
  // DDP under no_sync(): the first A - 1 micro-batches add their gradients locally; the last one's
  // backward starts the buckets, and one update follows the step's A micro-batches.
  ScheduleSpec s{ScheduleKind::sgd, 1, 0};
  s.accumulation_steps = 3;
  EXPECT_EQ(run(s, 2),
            (Log{"step 1",         "fwd+bwd 1/3",   "fwd+bwd 2/3 adds", "fwd+bwd 3/3 adds", "start bucket 0",
                 "start bucket 1", "wait bucket 0", "wait bucket 1",    "update averaged",  "end",
                 "step 2",         "fwd+bwd 1/3",   "fwd+bwd 2/3 adds", "fwd+bwd 3/3 adds", "start bucket 0",
                 "start bucket 1", "wait bucket 0", "wait bucket 1",    "update averaged",  "end"}));
  s.overlap = false;  // the same order: the buckets start after the last backward either way
  EXPECT_EQ(run(s, 1), (Log{"step 1", "fwd+bwd 1/3", "fwd+bwd 2/3 adds", "fwd+bwd 3/3 adds", "start bucket 0",
                            "start bucket 1", "wait bucket 0", "wait bucket 1", "update averaged", "end"}));
}

TEST(RunSchedule, PeriodicSchedulesAccumulateEveryLocalStep) {
  ScheduleSpec s{ScheduleKind::local_sgd, 2, 0};
  s.accumulation_steps = 2;
  EXPECT_EQ(run(s, 2), (Log{"step 1", "fwd+bwd 1/2", "fwd+bwd 2/2 adds", "update local", "end",  //
                            "step 2", "fwd+bwd 1/2", "fwd+bwd 2/2 adds", "update local", "allreduce weights",
                            "average weights", "end"}));
  s.island_gpus = 8;  // inside an island the local step is sgd's: buckets after the last micro-batch
  EXPECT_EQ(run(s, 1), (Log{"step 1", "fwd+bwd 1/2", "fwd+bwd 2/2 adds", "start bucket 0", "start bucket 1",
                            "wait bucket 0", "wait bucket 1", "update averaged", "end"}));
}

TEST(RunSchedule, LocalSgdAveragesTheWeightsEveryTauSteps) {
  EXPECT_EQ(run({ScheduleKind::local_sgd, 2, 0}, 4),
            (Log{"step 1",          "fwd+bwd", "update local", "end",  //
                 "step 2",          "fwd+bwd", "update local", "allreduce weights",
                 "average weights", "end",                             //
                 "step 3",          "fwd+bwd", "update local", "end",  //
                 "step 4",          "fwd+bwd", "update local", "allreduce weights",
                 "average weights", "end"}));
}

TEST(RunSchedule, DasgdMergesTheSnapshotAverageDStepsLater) {
  // tau 2, d 1: snapshots at steps 2 and 4; the first merges at step 3, the last one is drained.
  EXPECT_EQ(
      run({ScheduleKind::dasgd, 2, 1}, 4),
      (Log{"step 1",        "fwd+bwd",       "update local", "end",                                     //
           "step 2",        "fwd+bwd",       "update local", "snapshot",      "start snapshot", "end",  //
           "step 3",        "fwd+bwd",       "update local", "wait snapshot", "apply average",  "end",  //
           "step 4",        "fwd+bwd",       "update local", "snapshot",      "start snapshot", "end",  //
           "wait snapshot", "apply average", "drained"}));
}

TEST(RunSchedule, DasgdWithDEqualTauMergesBeforeTheNextSnapshot) {
  // tau 2, d 2: the average of step 2 merges at step 4, before step 4's own snapshot starts.
  const Log log = run({ScheduleKind::dasgd, 2, 2}, 4);
  const Log step4{"step 4",         "fwd+bwd", "update local",  "wait snapshot", "apply average", "snapshot",
                  "start snapshot", "end",     "wait snapshot", "apply average", "drained"};
  ASSERT_GE(log.size(), step4.size());
  EXPECT_EQ(Log(log.end() - long(step4.size()), log.end()), step4);
}

TEST(RunSchedule, DasgdWithDZeroIsLocalSgdWithASnapshot) {
  EXPECT_EQ(run({ScheduleKind::dasgd, 1, 0}, 1),
            (Log{"step 1", "fwd+bwd", "update local", "snapshot", "start snapshot", "wait snapshot",
                 "apply average", "end"}));
}

ScheduleSpec streaming(int H, int fragments, int delay) {
  ScheduleSpec s{ScheduleKind::streaming_diloco, H, delay};
  s.fragments = fragments;
  return s;
}

TEST(RunSchedule, DilocoBlocksOnTheOuterGradientEveryHSteps) {
  EXPECT_EQ(run({ScheduleKind::diloco, 2, 0}, 4),
            (Log{"step 1",        "fwd+bwd",      "update local", "end",  //
                 "step 2",        "fwd+bwd",      "update local", "outer gradient 0",
                 "start outer 0", "wait outer 0", "outer step 0", "end",  //
                 "step 3",        "fwd+bwd",      "update local", "end",  //
                 "step 4",        "fwd+bwd",      "update local", "outer gradient 0",
                 "start outer 0", "wait outer 0", "outer step 0", "end"}));
}

TEST(RunSchedule, StreamingDilocoSynchronisesTheFragmentsInTurnAndAppliesEachDStepsLater) {
  // H 4, P 2, d 1: fragment 0 at steps 2 and 6 (k % 4 == 2), fragment 1 at step 4 (k % 4 == 0);
  // each applied one step later; the one of step 6 is drained after the last step.
  EXPECT_EQ(run(streaming(4, 2, 1), 6),
            (Log{"step 1",        "fwd+bwd",      "update local", "end",  //
                 "step 2",        "fwd+bwd",      "update local", "outer gradient 0",
                 "start outer 0", "end",          "step 3",       "fwd+bwd",
                 "update local",  "wait outer 0", "outer step 0", "end",  //
                 "step 4",        "fwd+bwd",      "update local", "outer gradient 1",
                 "start outer 1", "end",          "step 5",       "fwd+bwd",
                 "update local",  "wait outer 1", "outer step 1", "end",  //
                 "step 6",        "fwd+bwd",      "update local", "outer gradient 0",
                 "start outer 0", "end",          "wait outer 0", "outer step 0",
                 "drained"}));
}

TEST(RunSchedule, StreamingDilocoWithDEqualHAppliesBeforeTheFragmentsNextSync) {
  // H 2, P 1, d 2: the outer gradient of step 2 is applied at step 4, before step 4's own starts.
  const Log log = run(streaming(2, 1, 2), 4);
  const Log step4{"step 4",       "fwd+bwd",          "update local",  "wait outer 0",
                  "outer step 0", "outer gradient 0", "start outer 0", "end",
                  "wait outer 0", "outer step 0",     "drained"};
  ASSERT_GE(log.size(), step4.size());
  EXPECT_EQ(Log(log.end() - long(step4.size()), log.end()), step4);
}

TEST(RunSchedule, StreamingDilocoDrainsOverlappingFragmentsInTheOrderTheyStarted) {
  // H 4, P 4, d 3: fragments sync at steps 1 (p0), 2 (p1), 3 (p2), 4 (p3); a run of 4 steps ends
  // with p1, p2, p3 in flight (p0 was applied at step 4, before p3 started).
  const Log log = run(streaming(4, 4, 3), 4);
  const Log tail{"wait outer 1", "outer step 1", "wait outer 2", "outer step 2",
                 "wait outer 3", "outer step 3", "drained"};
  EXPECT_EQ(Log(log.end() - long(tail.size()), log.end()), tail);
}

TEST(RunSchedule, IslandsRunSgdsStepInsideTheIslandBetweenAveragings) {
  ScheduleSpec s{ScheduleKind::local_sgd, 2, 0};
  s.island_gpus = 8;
  const Log island_step{"fwd+bwd",       "start bucket 0", "start bucket 1",
                        "wait bucket 0", "wait bucket 1",  "update averaged"};
  Log expected{"step 1"};
  expected.insert(expected.end(), island_step.begin(), island_step.end());
  expected.insert(expected.end(), {"end", "step 2"});
  expected.insert(expected.end(), island_step.begin(), island_step.end());
  expected.insert(expected.end(), {"allreduce weights", "average weights", "end"});
  EXPECT_EQ(run(s, 2), expected);
  s.kind = ScheduleKind::sgd;  // islands mean nothing to sgd: its step is unchanged
  EXPECT_EQ(run(s, 1), run({ScheduleKind::sgd, 1, 0}, 1));
}

TEST(RunSchedule, EagerDilocoAppliesThePreviousRoundsAverageWhileThisOnesIsInFlight) {
  ScheduleSpec s{ScheduleKind::diloco, 2, 0};
  s.eager = true;
  // Step 2: the first round starts its allreduce and steps at once (no earlier average); step 4
  // starts round 2's and waits for round 1's; the last one is waited for after the run, unapplied.
  const Log log = run(s, 4);
  const Log expected{
      "step 1",           "fwd+bwd",          "update local",  "end",          "step 2",  "fwd+bwd",
      "update local",     "outer gradient 0", "start outer 0", "outer step 0", "end",     "step 3",
      "fwd+bwd",          "update local",     "end",           "step 4",       "fwd+bwd", "update local",
      "outer gradient 0", "start outer 0",    "wait outer 0",  "outer step 0", "end",     "wait outer 0",
      "drained"};
  EXPECT_EQ(log, expected);
}

TEST(Periods, FragmentsTakeTurnsHOverPStepsApart) {
  const auto s = streaming(100, 4, 5);
  for (long k = 1; k <= 200; ++k) {
    int synced = 0;
    for (int p = 0; p < 4; ++p) synced += is_fragment_sync_step(s, p, k) ? 1 : 0;
    EXPECT_EQ(synced, k % 25 == 0 ? 1 : 0) << k;
  }
  EXPECT_TRUE(is_fragment_sync_step(s, 0, 25));
  EXPECT_TRUE(is_fragment_sync_step(s, 2, 175));
  EXPECT_TRUE(is_fragment_sync_step(s, 3, 200));  // the last fragment at the multiples of H
}

TEST(Periods, SteadyWindowIsWholeSyncPeriodsAfterTheWarmUp) {
  // sgd synchronises every step: the window starts right after the warm-up and runs to the end.
  EXPECT_EQ(steady_window({ScheduleKind::sgd, 1, 0}, 60, 5).first, 5);
  EXPECT_EQ(steady_window({ScheduleKind::sgd, 1, 0}, 60, 5).count, 55);
  // tau 4: warm-up 5 -> 8 steps; 52 steps = 13 periods (steps 9..60), each with one averaging.
  EXPECT_EQ(steady_window({ScheduleKind::dasgd, 4, 1}, 60, 5).first, 8);
  EXPECT_EQ(steady_window({ScheduleKind::dasgd, 4, 1}, 60, 5).count, 52);
  // 62 steps: the partial period 61..62 (no averaging) is trained but not timed.
  EXPECT_EQ(steady_window({ScheduleKind::local_sgd, 4, 0}, 62, 5).count, 52);
  EXPECT_EQ(steady_window({ScheduleKind::local_sgd, 4, 0}, 11, 5).count, 0);
}

TEST(Periods, WholePeriodsRoundsUpToTau) {
  EXPECT_EQ(whole_periods(8, {ScheduleKind::sgd, 1, 0}), 8);
  EXPECT_EQ(whole_periods(5, {ScheduleKind::local_sgd, 4, 0}), 8);
  EXPECT_EQ(whole_periods(0, {ScheduleKind::dasgd, 4, 1}), 0);
  EXPECT_TRUE(is_averaging_step({ScheduleKind::dasgd, 4, 1}, 8));
  EXPECT_FALSE(is_averaging_step({ScheduleKind::sgd, 1, 0}, 8));  // sgd averages gradients, not weights
}
