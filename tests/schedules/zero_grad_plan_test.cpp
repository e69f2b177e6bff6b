// The step plan the schedules simulate carries zero_grad's costs where they happen: backward's
// accumulation into the zeroed gradients inside the backward segment whose bucket it delays, the
// fill with the update. Two linear layers of 5 M and 2.5 M fp32 parameters (one tensor each, no
// GEMM shape), FLOP-timed; 1e12 B/s and no launch overhead, so the accumulations are 3 x 20 MB
// and 3 x 10 MB / 1e12 = 60 and 30 us and the fill 30 MB / 1e12 = 30 us. A 10 MB cap closes one
// bucket per layer: backward's first segment ends with the second layer's, 30 us longer.
#include "compute/compute_model.hpp"
#include "two_layer_fixture.hpp"
#include "workers/step_plan.hpp"

#include <gtest/gtest.h>

#include <utility>

using namespace dasim;

namespace {

workload::Workload flop_timed_layers() {
  workload::Workload w;
  w.name = "two-linear";
  for (const auto& [name, params] : {std::pair{"a", 5'000'000}, std::pair{"b", 2'500'000}}) {
    workload::Layer l;
    l.name = name;
    l.kind = workload::LayerKind::linear;
    l.params = params;
    l.forward_flops = 1e7;
    l.backward_flops = 2e7;
    w.layers.push_back(l);
  }
  return w;
}

}  // namespace

TEST(ZeroGradPlan, AccumulationLiesInTheBackwardSegmentOfItsBucket) {
  const auto calibration = two_layer::test_calibration();
  compute::ComputeModel model(calibration, workload::Precision::fp32);
  auto w = flop_timed_layers();
  const double cap = 10e6;
  const auto none = workers::plan_step(w, model, 1e12, 32, cap);
  w.zero_grad = workload::ZeroGrad::zero;
  const auto zero = workers::plan_step(w, model, 1e12, 32, cap);
  ASSERT_EQ(none.backward.size(), 2u);
  ASSERT_EQ(zero.backward.size(), 2u);
  const double added[] = {30e-6, 60e-6};  // layer b's segment first: backward runs in reverse
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(zero.backward[i].bucket, none.backward[i].bucket);
    EXPECT_NEAR(zero.backward[i].time_s - none.backward[i].time_s, added[i], 1e-12);
  }
  EXPECT_NEAR(zero.update_s - none.update_s, 30e-6, 1e-12);
  // Sharded over 4 GPUs (fsdp): a quarter of the bytes.
  const auto sharded = workers::plan_step(w, model, 1e12, 32, cap, 4);
  w.zero_grad = workload::ZeroGrad::set_to_none;
  const auto sharded_none = workers::plan_step(w, model, 1e12, 32, cap, 4);
  EXPECT_NEAR(sharded.backward_s() - sharded_none.backward_s(), (60e-6 + 30e-6) / 4, 1e-12);
}

// Gradient accumulation: every micro-batch after the first adds its gradients, the same 60 and
// 30 us per layer, in the segment of the layer's bucket; with zero_grad zero backward adds on every
// micro-batch already, so the later ones add nothing more. Timed layers (their run had one batch
// per step) add too.
TEST(ZeroGradPlan, LaterMicroBatchesAddTheirGradientsUnlessZeroAlreadyDoes) {
  const auto calibration = two_layer::test_calibration();
  compute::ComputeModel model(calibration, workload::Precision::fp32);
  auto w = flop_timed_layers();
  const double cap = 10e6;
  const auto none = workers::plan_step(w, model, 1e12, 32, cap, 1, 4);
  ASSERT_EQ(none.backward.size(), 2u);
  EXPECT_NEAR(none.backward[0].adds_s, 30e-6, 1e-12);
  EXPECT_NEAR(none.backward[1].adds_s, 60e-6, 1e-12);
  EXPECT_NEAR(none.step_compute_s(), 4 * (none.forward_s + none.backward_s()) + 3 * 90e-6 + none.update_s,
              1e-12);
  w.zero_grad = workload::ZeroGrad::zero;
  EXPECT_EQ(workers::plan_step(w, model, 1e12, 32, cap, 1, 4).backward_adds_s(), 0.0);
  w.zero_grad = workload::ZeroGrad::set_to_none;
  for (auto& layer : w.layers) {  // measured at batch 32
    layer.forward_time_s = 1e-3;
    layer.backward_time_s = 2e-3;
    layer.measured_batch = 32;
  }
  EXPECT_NEAR(workers::plan_step(w, model, 1e12, 32, cap, 1, 4).backward_adds_s(), 90e-6, 1e-12);
}

// The loader has the whole step for its micro-batches: 4 x 32 samples at 1 ms each (128 ms) against
// a step of 4 x 6 ms of timed layers, 3 x 90 us of additions and the 0.15 ms update (SGD with
// momentum, 5 streams of 7.5 M fp32 parameters): the GPU waits 128 - 24.42 ms; one micro-batch
// would wait 32 - 6.15 ms.
TEST(ZeroGradPlan, TheInputWaitCoversTheWholeStep) {
  auto calibration = two_layer::test_calibration();
  calibration.fitted.input_per_sample_s = 1e-3;
  compute::ComputeModel model(calibration, workload::Precision::fp32);
  auto w = flop_timed_layers();
  for (auto& layer : w.layers) {
    layer.forward_time_s = 1e-3;
    layer.backward_time_s = 2e-3;
    layer.measured_batch = 32;
  }
  const auto one = workers::plan_step(w, model, 1e12, 32, 10e6);
  const auto four = workers::plan_step(w, model, 1e12, 32, 10e6, 1, 4);
  const double update = 5 * 7.5e6 * 4 / 1e12;  // SGD with momentum: 5 streams of 30 MB
  EXPECT_NEAR(one.input_wait_s(), 32e-3 - (6e-3 + update), 1e-12);
  EXPECT_NEAR(four.input_wait_s(), 128e-3 - (24e-3 + 270e-6 + update), 1e-12);
}
