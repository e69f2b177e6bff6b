// The step plan with activation checkpointing: each block's forward runs again right before the
// backward of its last layer, so it delays that layer's gradient and every later one, and adds
// the blocks' forward time to the step, once per micro-batch. Layers with measured times (forward
// 1, 3, 4, 5, 7 ms at batch 32, backward twice that): emb | b0: a1, a2 | b1: c1 | head.
#include "compute/compute_model.hpp"
#include "compute/step_prediction.hpp"
#include "two_layer_fixture.hpp"
#include "workers/step_plan.hpp"

#include <gtest/gtest.h>

using namespace dasim;

namespace {

workload::Workload blocks_of_layers(workload::ActivationCheckpointing mode) {
  workload::Workload w;
  w.name = "five";
  w.measured_batch = 32;
  w.activation_checkpointing = mode;
  const std::pair<const char*, double> layers[] = {
      {"", 1e-3}, {"b0", 3e-3}, {"b0", 4e-3}, {"b1", 5e-3}, {"", 7e-3}};
  for (const auto& [block, forward] : layers) {
    workload::Layer l;
    l.name = std::string("layer-") + std::to_string(w.layers.size());
    l.kind = workload::LayerKind::linear;
    l.block = block;
    l.forward_time_s = forward;
    l.backward_time_s = 2 * forward;
    l.measured_batch = 32;
    w.layers.push_back(l);
  }
  return w;
}

}  // namespace

TEST(RecomputePlan, BlocksForwardRunsBeforeTheirLastLayersBackward) {
  const auto calibration = two_layer::test_calibration();
  compute::ComputeModel model(calibration, workload::Precision::fp32);
  const auto none =
      workers::plan_step(blocks_of_layers(workload::ActivationCheckpointing::none), model, 1e12, 32, 1e9);
  const auto blocks =
      workers::plan_step(blocks_of_layers(workload::ActivationCheckpointing::blocks), model, 1e12, 32, 1e9);
  // Backward order head, c1, a2, a1, emb: c1 carries b1's 5 ms, a2 carries b0's 3 + 4 ms.
  const double backward[] = {14e-3, 10e-3 + 5e-3, 8e-3 + 7e-3, 6e-3, 2e-3};
  ASSERT_EQ(blocks.backward_layers_s.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(blocks.backward_layers_s[i], backward[i], 1e-15) << i;
    EXPECT_NEAR(none.backward_layers_s[i], backward[i] - (i == 1 ? 5e-3 : i == 2 ? 7e-3 : 0), 1e-15) << i;
  }
  EXPECT_NEAR(blocks.forward_s, none.forward_s, 1e-15);  // the forward runs once
  EXPECT_NEAR(blocks.backward_s() - none.backward_s(), 12e-3, 1e-15);
  // Four micro-batches recompute four times.
  const auto four = workers::plan_step(blocks_of_layers(workload::ActivationCheckpointing::blocks), model,
                                       1e12, 32, 1e9, 1, 4);
  const auto four_none = workers::plan_step(blocks_of_layers(workload::ActivationCheckpointing::none), model,
                                            1e12, 32, 1e9, 1, 4);
  EXPECT_NEAR(four.step_compute_s() - four_none.step_compute_s(), 4 * 12e-3, 1e-12);
}

TEST(RecomputePlan, PredictedStepCountsTheRecomputeApart) {
  const auto calibration = two_layer::test_calibration();
  compute::ComputeModel model(calibration, workload::Precision::fp32);
  const auto w = blocks_of_layers(workload::ActivationCheckpointing::blocks);
  const auto p = compute::predict_step(w, model, 32);
  EXPECT_NEAR(p.forward_s, 20e-3, 1e-15);
  EXPECT_NEAR(p.backward_s, 40e-3, 1e-15);  // each layer's own backward, without the recompute
  EXPECT_NEAR(p.recompute_s, 12e-3, 1e-15);
  EXPECT_NEAR(p.step_s(), 72e-3 + p.update_s, 1e-12);
  EXPECT_NEAR(model.step_compute_time_s(w, 32), p.step_s(), 1e-12);
}
