// The step plan with activation checkpointing: each block's forward runs again right before the
// backward of its last layer, so it delays that layer's gradient and every later one, and adds
// the blocks' forward time to the step, once per micro-batch. Layers with measured times (forward
// 1, 3, 4, 5, 7 ms at batch 32, backward twice that): emb | b0: a1, a2 | b1: c1 | head.
#include "compute/compute_model.hpp"
#include "compute/step_prediction.hpp"
#include "two_layer_fixture.hpp"
#include "workers/step_plan.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>

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
}

// With parameters, the recompute still lands before the bucket it delays when the block's last
// layer has none: b0 = a linear layer (1 M fp32 parameters: one 4 MB bucket) then an elementwise
// one without parameters, forward 3 and 1 ms, backward twice that. Backward runs the elementwise
// layer first, preceded by b0's 3 + 1 = 4 ms recompute (2 + 4 = 6 ms), then the linear layer
// (6 ms), which completes the bucket: 12 ms. Sharded over 2 GPUs (fsdp) the recompute is the same
// (compute, not gradient bytes).
TEST(RecomputePlan, RecomputeDelaysTheBucketOfTheBlocksLastParameterLayer) {
  const auto calibration = two_layer::test_calibration();
  compute::ComputeModel model(calibration, workload::Precision::fp32);
  workload::Workload w;
  w.name = "block-with-params";
  w.measured_batch = 32;
  w.activation_checkpointing = workload::ActivationCheckpointing::blocks;
  for (const auto& [kind, params, forward] :
       {std::tuple{workload::LayerKind::linear, int64_t{1'000'000}, 3e-3},
        std::tuple{workload::LayerKind::elementwise, int64_t{0}, 1e-3}}) {
    workload::Layer l;
    l.name = workload::to_string(kind);
    l.kind = kind;
    l.params = params;
    l.block = "b0";
    l.forward_time_s = forward;
    l.backward_time_s = 2 * forward;
    l.measured_batch = 32;
    w.layers.push_back(l);
  }
  for (int shards : {1, 2}) {
    const auto plan = workers::plan_step(w, model, 1e12, 32, 4e6, shards);
    ASSERT_EQ(plan.backward.size(), 1u) << shards;
    EXPECT_EQ(plan.backward[0].bucket, 0) << shards;
    // The one bucket is ready after both layers' backward and the 4 ms recompute: 2 + 4 + 6 ms.
    EXPECT_NEAR(plan.backward[0].time_s, 12e-3, 1e-12) << shards;
    ASSERT_EQ(plan.bucket_after_backward_layer.size(), 2u);
    EXPECT_EQ(plan.bucket_after_backward_layer[0], -1);  // act: no parameters
    EXPECT_EQ(plan.bucket_after_backward_layer[1], 0);   // the linear layer closes it
    EXPECT_NEAR(plan.backward_layers_s[0], 2e-3 + 4e-3, 1e-15) << shards;
  }
}
