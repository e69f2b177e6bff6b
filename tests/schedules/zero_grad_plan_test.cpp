// The step plan the schedules simulate carries zero_grad's costs where they happen: backward's
// accumulation into the zeroed gradients inside the backward segment whose bucket it delays, the
// fill with the update. Two linear layers of 5 M fp32 parameters (one tensor each, no GEMM shape),
// FLOP-timed; 1e12 B/s and no launch overhead, so each accumulation is 3 x 20 MB / 1e12 = 60 us
// and the fill 2 x 20 MB / 1e12 = 40 us; one bucket per layer.
#include "compute/compute_model.hpp"
#include "two_layer_fixture.hpp"
#include "workers/step_plan.hpp"

#include <gtest/gtest.h>

using namespace dasim;

namespace {

workload::Workload flop_timed_layers() {
  workload::Workload w;
  w.name = "two-linear";
  for (const char* name : {"a", "b"}) {
    workload::Layer l;
    l.name = name;
    l.kind = workload::LayerKind::linear;
    l.params = 5'000'000;
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
  const double cap = 20e6;  // one 20 MB layer per bucket
  const auto none = workers::plan_step(w, model, 1e12, 32, cap);
  w.zero_grad = workload::ZeroGrad::zero;
  const auto zero = workers::plan_step(w, model, 1e12, 32, cap);
  ASSERT_EQ(none.backward.size(), 2u);
  ASSERT_EQ(zero.backward.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(zero.backward[i].bucket, none.backward[i].bucket);
    EXPECT_NEAR(zero.backward[i].time_s - none.backward[i].time_s, 60e-6, 1e-12);
  }
  EXPECT_NEAR(zero.update_s - none.update_s, 40e-6, 1e-12);
  // Sharded over 4 GPUs (fsdp): a quarter of the bytes.
  const auto sharded = workers::plan_step(w, model, 1e12, 32, cap, 4);
  w.zero_grad = workload::ZeroGrad::set_to_none;
  const auto sharded_none = workers::plan_step(w, model, 1e12, 32, cap, 4);
  EXPECT_NEAR(sharded.backward_s() - sharded_none.backward_s(), 2 * 15e-6, 1e-12);
}
