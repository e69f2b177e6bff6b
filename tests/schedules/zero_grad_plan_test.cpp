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
