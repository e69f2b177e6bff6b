// The fitter on runs generated from known parameters: loss curves written as dasim-train writes
// them, each crossing the target at the step the model gives, read back through the run-file
// reader. The parameters must come back within 5%; what the runs cannot identify is refused.
#include "convergence/convergence_fit.hpp"
#include "common/errors.hpp"
#include "convergence/training_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace dasim;
using namespace dasim::convergence;

namespace {

constexpr double kSteps = 500, kNoise = 300, kLocal = 0.05, kDasgd = 0.08, kTarget = 0.5;

class FitTest : public ::testing::Test {
 protected:
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("dasim-fit-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // A run whose loss, target x steps / k, first reaches the target (window 1) at step `steps`.
  TrainingRun run(const std::string& schedule, int tau, int delay, int ranks, int batch, int steps) {
    std::vector<double> loss;
    for (int k = 1; k <= steps + 20; ++k) loss.push_back(kTarget * (steps - 0.5) / (k - 0.5));
    nlohmann::json j = {{"tool", "dasim-train"},
                        {"config",
                         {{"schedule", schedule},
                          {"tau", tau},
                          {"delay", delay},
                          {"ranks", ranks},
                          {"batch_per_rank", batch}}},
                        {"target", {{"target_loss", kTarget}, {"window_steps", 1}}},
                        {"loss_curve", loss}};
    const auto file = (dir / fmt_name(schedule, tau, ranks, batch)).string();
    std::ofstream(file) << j.dump();
    return load_training_run(file, kTarget, std::nullopt);
  }
  static std::string fmt_name(const std::string& s, int tau, int ranks, int batch) {
    return s + "-t" + std::to_string(tau) + "-n" + std::to_string(ranks) + "-b" + std::to_string(batch) +
           ".json";
  }
  // Steps the true model gives, rounded as a run counts them.
  static int truth(double global_batch, double c = 0, double exposure = 0) {
    return static_cast<int>(std::lround(kSteps * (1 + kNoise / global_batch) * (1 + c * exposure)));
  }
};

}  // namespace

TEST_F(FitTest, LossCurveCrossesTheTargetAtTheGivenStep) {
  EXPECT_EQ(run("sgd", 1, 0, 1, 32, 123).steps, 123);
}

TEST_F(FitTest, RecoversKnownParametersWithinFivePercent) {
  std::vector<TrainingRun> runs;
  for (int ranks : {1, 2, 4})
    for (int batch : {16, 64, 256}) runs.push_back(run("sgd", 1, 0, ranks, batch, truth(ranks * batch)));
  for (int ranks : {2, 4})
    for (int batch : {32, 128}) {
      const double w = 1 - 1.0 / ranks;
      runs.push_back(run("local_sgd", 4, 0, ranks, batch, truth(ranks * batch, kLocal, 3 * w)));
      runs.push_back(run("dasgd", 4, 1, ranks, batch, truth(ranks * batch, kDasgd, 4 * w)));
    }
  const auto fit = fit_convergence(runs, kTarget);
  EXPECT_NEAR(fit.model.steps_min, kSteps, 0.05 * kSteps);
  EXPECT_NEAR(fit.model.batch_noise, kNoise, 0.05 * kNoise);
  EXPECT_NEAR(fit.model.schedules.at("local_sgd").period_coefficient, kLocal, 0.05 * kLocal);
  EXPECT_NEAR(fit.model.schedules.at("dasgd").period_coefficient, kDasgd, 0.05 * kDasgd);
  ASSERT_TRUE(fit.model.steps_min_stderr &&
              fit.model.batch_noise_stderr);  // 9 sgd runs: 7 degrees of freedom
  EXPECT_LT(*fit.model.steps_min_stderr, 0.05 * kSteps);
  // A held-back configuration (8 ranks x 512) is predicted as the true model gives it.
  const auto held = check_runs(fit.model, {run("local_sgd", 4, 0, 8, 512, truth(4096, kLocal, 3 * 7.0 / 8))});
  EXPECT_LT(std::abs(held[0].error()), 0.05);
  EXPECT_LT(median_abs_error(fit.fitted), 0.01);
}

TEST_F(FitTest, TwoBatchesFitExactlyWithoutStandardErrors) {
  // S = 500 (1 + 300 / B) at B = 100 and 300: 2000 and 1000 steps determine both parameters.
  const auto fit = fit_convergence({run("sgd", 1, 0, 1, 100, 2000), run("sgd", 1, 0, 1, 300, 1000)}, kTarget);
  EXPECT_NEAR(fit.model.steps_min, 500, 1e-6);
  EXPECT_NEAR(fit.model.batch_noise, 300, 1e-6);
  EXPECT_FALSE(fit.model.steps_min_stderr);
}

TEST_F(FitTest, RefusesWhatTheRunsCannotIdentify) {
  // One global batch (2 x 32 = 1 x 64): no slope.
  EXPECT_THROW(fit_convergence({run("sgd", 1, 0, 1, 64, 900), run("sgd", 1, 0, 2, 32, 910)}, kTarget),
               InputError);
  // Steps that keep falling faster than 1/B: no positive floor S_min.
  EXPECT_THROW(fit_convergence({run("sgd", 1, 0, 1, 100, 1000), run("sgd", 1, 0, 1, 200, 480),
                                run("sgd", 1, 0, 1, 400, 200)},
                               kTarget),
               InputError);
  // Steps that rise with the batch: B_noise < 0.
  EXPECT_THROW(fit_convergence({run("sgd", 1, 0, 1, 100, 500), run("sgd", 1, 0, 1, 400, 700)}, kTarget),
               InputError);
  // local_sgd only on one worker: its term multiplies (1 - 1/W) = 0.
  EXPECT_THROW(fit_convergence({run("sgd", 1, 0, 1, 100, 2000), run("sgd", 1, 0, 1, 300, 1000),
                                run("local_sgd", 4, 0, 1, 100, 2000)},
                               kTarget),
               InputError);
  // No sgd run at all.
  EXPECT_THROW(fit_convergence({run("local_sgd", 4, 0, 2, 100, 2000)}, kTarget), InputError);
  // A top-k run (dasim-train --top-k): the model has no term for it.
  auto sparse = run("diloco", 4, 0, 2, 100, 1500);
  sparse.schedule.top_k.density = 0.1;
  try {
    fit_convergence({run("sgd", 1, 0, 1, 100, 2000), run("sgd", 1, 0, 1, 300, 1000), sparse}, kTarget);
    FAIL() << "a top-k run was fitted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("config.top_k: the model has no term for top-k sparsification"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(FitTest, ATopKRunReadsItsDensity) {
  nlohmann::json j = {{"tool", "dasim-train"},
                      {"config",
                       {{"schedule", "diloco"},
                        {"tau", 4},
                        {"delay", 0},
                        {"ranks", 2},
                        {"batch_per_rank", 32},
                        {"top_k", 0.05}}},
                      {"target", {{"target_loss", kTarget}, {"window_steps", 1}}},
                      {"loss_curve", {1.0, 0.5, 0.1}}};
  const auto file = (dir / "topk.json").string();
  std::ofstream(file) << j.dump();
  EXPECT_DOUBLE_EQ(load_training_run(file, kTarget, std::nullopt).schedule.top_k.density, 0.05);
  j["config"]["top_k"] = 1.5;
  std::ofstream(file) << j.dump();
  EXPECT_THROW(load_training_run(file, kTarget, std::nullopt), InputError);
}

TEST_F(FitTest, ARunThatNeverReachesTheTargetIsAnInputError) {
  run("sgd", 1, 0, 1, 32, 100);
  const auto file = (dir / fmt_name("sgd", 1, 1, 32)).string();
  try {
    load_training_run(file, kTarget / 100, std::nullopt);
    FAIL() << "a target below the whole curve was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file + ": loss_curve: the mean loss over 1 steps never reaches"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(FitTest, DilocoRunsOfTwoOuterStepsAreRefused) {
  std::vector<TrainingRun> runs{run("sgd", 1, 0, 1, 100, 2000), run("sgd", 1, 0, 1, 300, 1000)};
  for (double momentum : {0.5, 0.9}) {
    TrainingRun r;
    r.file = "diloco-mu" + std::to_string(momentum) + ".json";
    r.schedule.kind = dasim::schedules::ScheduleKind::diloco;
    r.schedule.tau = 8;
    r.schedule.outer.momentum = momentum;
    r.ranks = 2;
    r.batch_per_rank = 100;
    r.steps = 1500;
    runs.push_back(r);
  }
  EXPECT_THROW(fit_convergence(runs, kTarget), InputError);
  runs.pop_back();  // one outer step: the term records it
  const auto fit = fit_convergence(runs, kTarget);
  ASSERT_TRUE(fit.model.schedules.at("diloco").outer);
  EXPECT_DOUBLE_EQ(fit.model.schedules.at("diloco").outer->momentum, 0.5);
}
