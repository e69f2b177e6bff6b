// The convergence model's closed forms (docs/time-to-accuracy.md): S(B) = S_min (1 + B_noise / B),
// the periodic schedules' factor 1 + c (p - 1)(1 - 1/W), and where it has no steps to give.
#include "convergence/convergence_model.hpp"

#include <gtest/gtest.h>

using namespace dasim;
using namespace dasim::convergence;
using schedules::ScheduleKind;

namespace {

ConvergenceModel model() {
  ConvergenceModel m;
  m.steps_min = 1000;
  m.batch_noise = 256;
  m.schedules["local_sgd"].period_coefficient = 0.1;
  m.schedules["dasgd"].period_coefficient = 0.2;
  return m;
}

schedules::ScheduleSpec spec(ScheduleKind kind, int tau = 1, int delay = 0) {
  schedules::ScheduleSpec s;
  s.kind = kind;
  s.tau = tau;
  s.delay = delay;
  return s;
}

}  // namespace

TEST(ConvergenceModel, AtTheNoiseScaleSgdTakesTwiceTheFewestSteps) {
  EXPECT_DOUBLE_EQ(sgd_steps(model(), 256), 2000);       // B = B_noise: 2 S_min
  EXPECT_DOUBLE_EQ(sgd_steps(model(), 64), 5000);        // 1000 (1 + 4)
  EXPECT_NEAR(sgd_steps(model(), 1 << 30), 1000, 1e-3);  // the floor S_min
}

TEST(ConvergenceModel, SgdStepsUseTheGlobalBatch) {
  // 8 GPUs x 32 samples = 256 = B_noise.
  EXPECT_DOUBLE_EQ(*predict_steps(model(), spec(ScheduleKind::sgd), 8, 32).steps, 2000);
}

TEST(ConvergenceModel, PeriodAndWorkersOfEachSchedule) {
  EXPECT_EQ(effective_period(spec(ScheduleKind::local_sgd, 4)), 4);
  EXPECT_EQ(effective_period(spec(ScheduleKind::dasgd, 4, 1)), 5);  // the average is tau + d steps old
  EXPECT_EQ(effective_period(spec(ScheduleKind::diloco, 100)), 100);
  auto islands = spec(ScheduleKind::diloco, 100);
  islands.island_gpus = 8;
  EXPECT_EQ(workers(islands, 64), 8);  // 8 islands of 8 GPUs
  EXPECT_DOUBLE_EQ(period_exposure(islands, 64), 99 * (1 - 1.0 / 8));
}

TEST(ConvergenceModel, PeriodicFactorIsLinearInPeriodAndWorkers) {
  // local_sgd tau 4 on 4 GPUs x 64 = B 256: 2000 (1 + 0.1 x 3 x 3/4) = 2450.
  EXPECT_DOUBLE_EQ(*predict_steps(model(), spec(ScheduleKind::local_sgd, 4), 4, 64).steps, 2450);
  // dasgd tau 4 d 1 on 2 GPUs x 128: 2000 (1 + 0.2 x 4 x 1/2) = 2800.
  EXPECT_DOUBLE_EQ(*predict_steps(model(), spec(ScheduleKind::dasgd, 4, 1), 2, 128).steps, 2800);
}

TEST(ConvergenceModel, OneWorkerIsSynchronousSgdWhateverTheSchedule) {
  // No diloco term in the file, but one worker averages with nobody: S(B) itself.
  EXPECT_DOUBLE_EQ(*predict_steps(model(), spec(ScheduleKind::diloco, 50), 1, 256).steps, 2000);
}

TEST(ConvergenceModel, NoStepsWithoutATermOrForWhatItHasNoTermFor) {
  const auto missing = predict_steps(model(), spec(ScheduleKind::diloco, 50), 8, 32);
  EXPECT_FALSE(missing.steps);
  EXPECT_NE(missing.why_not.find("no diloco term"), std::string::npos) << missing.why_not;
  auto compressed = spec(ScheduleKind::local_sgd, 4);
  compressed.payload_bits = 8;
  EXPECT_FALSE(predict_steps(model(), compressed, 8, 32).steps);
  EXPECT_TRUE(no_term_for(model(), compressed));
  auto sparse = spec(ScheduleKind::local_sgd, 4);
  sparse.top_k.density = 0.01;
  EXPECT_EQ(no_term_for(model(), sparse).value_or(""), "the model has no term for top-k sparsification");
  EXPECT_FALSE(no_term_for(model(), spec(ScheduleKind::sgd)));
  auto m = model();
  m.schedules["local_sgd"].period_coefficient = -0.5;  // 1 - 0.5 x 3 x 7/8 < 0: no nonsense steps
  EXPECT_FALSE(predict_steps(m, spec(ScheduleKind::local_sgd, 4), 8, 32).steps);
}

TEST(ConvergenceModel, ADilocoTermHoldsOnlyForTheOuterStepItWasFittedWith) {
  auto m = model();
  m.schedules["diloco"].period_coefficient = 0.01;
  m.schedules["diloco"].outer = schedules::OuterStep{schedules::OuterOptimizer::nesterov, 0.7, 0.5};
  auto diloco = spec(ScheduleKind::diloco, 11);  // DiLoCo's default outer step: momentum 0.9
  const auto other = predict_steps(m, diloco, 2, 128);
  EXPECT_FALSE(other.steps);
  EXPECT_NE(other.why_not.find("fitted with outer nesterov lr=0.7 mu=0.5, not nesterov lr=0.7 mu=0.9"),
            std::string::npos)
      << other.why_not;
  diloco.outer.momentum = 0.5;  // 2000 (1 + 0.01 x 10 x 1/2) = 2100
  EXPECT_DOUBLE_EQ(*predict_steps(m, diloco, 2, 128).steps, 2100);
}
