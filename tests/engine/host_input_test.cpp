// The host's input pipeline (TrainingConfig::host_input_samples_per_s) against its closed form: a
// worker ends a step only when the loader, which began on the next step's samples when this step
// began, is done; so the iteration is the longer of the GPU's step (compute and exposed
// communication) and the loader's time for one step's samples, and a node's GPUs share its host.
#include "platform/platform_variants.hpp"
#include "schedules/two_layer_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace dasim;
using namespace dasim::two_layer;

// 4 nodes of 1 GPU, one bucket allreduced after backward: the GPU's step is the compute and the
// ring, 24.2 ms + 4.812 ms. A host of 800 samples/s gives the node's one GPU its 32 samples in 40
// ms, so every iteration lasts 40 ms and waits 40 - 29.012 ms for its input.
TEST(HostInput, ALoaderSlowerThanTheStepSetsTheIteration) {
  auto c = config(4, sgd(false, 1e12));
  const double gpu_step = kStep + ring(4, kWeights);
  c.host_input_samples_per_s = 800;
  const auto r = simulate(c);
  EXPECT_NEAR(r.iter_time_s, 40e-3, 1e-9);
  EXPECT_NEAR(r.input_wait_s, 40e-3 - gpu_step, 1e-9);
  EXPECT_NEAR(r.compute_s, kStep, 1e-9);
  EXPECT_NEAR(r.exposed_comm_s, ring(4, kWeights), 1e-9);
}

// Every step waits for the next step's samples at its end, the first too: a run of one iteration
// without warm-up (as the validation cases run) measures the loader's period as well.
TEST(HostInput, TheFirstStepWaitsForTheNextStepsSamplesToo) {
  auto c = config(4, sgd(false, 1e12));
  c.host_input_samples_per_s = 800;
  c.warmup_iterations = 0;
  c.measured_iterations = 1;
  const auto r = simulate(c);
  EXPECT_NEAR(r.iter_time_s, 40e-3, 1e-9);
  EXPECT_NEAR(r.input_wait_s, 40e-3 - (kStep + ring(4, kWeights)), 1e-9);
}

// The loader has the whole step, its exposed communication included: at 1200 samples/s it takes
// 26.67 ms, more than the 24.2 ms of compute and less than the 29.01 ms step, so it is never
// waited for. (A wait charged against the compute alone would add 2.47 ms.)
TEST(HostInput, ALoaderFasterThanTheStepIsNeverWaitedFor) {
  auto c = config(4, sgd(false, 1e12));
  c.host_input_samples_per_s = 1200;
  const auto r = simulate(c);
  EXPECT_NEAR(r.iter_time_s, kStep + ring(4, kWeights), 1e-9);
  EXPECT_EQ(r.input_wait_s, 0);
}

// A node's GPUs share its host: on one DGX-1 (8 GPUs) a host of 5120 samples/s gives each GPU 640,
// 50 ms for its 32 samples, which sets the 8-GPU iteration; the 1-GPU baseline of the same
// platform has the host to itself (6.25 ms) and runs at its compute, 24.2 ms.
TEST(HostInput, TheGpusOfANodeShareItsHost) {
  auto c = config(1, sgd(false, 1e12));
  c.platform = platform::load_platform(std::string(DASIM_SOURCE_DIR) + "/platforms/dgx1-v100-edr.json", 1);
  c.host_input_samples_per_s = 5120;
  const auto eight = simulate(c);
  EXPECT_NEAR(eight.iter_time_s, 50e-3, 1e-9);
  EXPECT_NEAR(eight.input_wait_s, 50e-3 - eight.compute_s - eight.exposed_comm_s, 1e-9);
  c.platform = platform::single_gpu(c.platform);
  const auto one = simulate(c);
  EXPECT_NEAR(one.iter_time_s, kStep, 1e-9);
  EXPECT_EQ(one.input_wait_s, 0);
}

// The calibration's per-GPU loader (input_per_sample_s) and the host's share: the slower sets the
// rate. 1.5 ms per sample is 48 ms for 32 samples against the host's 40 ms; without a host the
// per-GPU loader alone gives the same 48 ms.
TEST(HostInput, TheSlowerOfThePerGpuLoaderAndTheHostShareSetsTheRate) {
  auto c = config(4, sgd(false, 1e12));
  c.calibration.fitted.input_per_sample_s = 1.5e-3;
  c.host_input_samples_per_s = 800;
  EXPECT_NEAR(simulate(c).iter_time_s, 48e-3, 1e-9);
  c.host_input_samples_per_s = 0;
  EXPECT_NEAR(simulate(c).iter_time_s, 48e-3, 1e-9);
  c.calibration.fitted.input_per_sample_s = 0.5e-3;  // 16 ms: the host's 40 ms is the slower
  c.host_input_samples_per_s = 800;
  EXPECT_NEAR(simulate(c).iter_time_s, 40e-3, 1e-9);
}

// Gradient accumulation: the loader prepares every micro-batch of the step. 4 x 32 samples at 1000
// samples/s take 128 ms, more than the accumulating step (4 x 24 ms of layers, the additions, the
// update and the ring: about 101 ms), which they then set.
TEST(HostInput, TheLoaderPreparesEveryMicroBatchOfTheStep) {
  auto c = config(4, sgd(false, 1e12));
  c.schedule.accumulation_steps = 4;
  c.host_input_samples_per_s = 1000;
  const auto r = simulate(c);
  EXPECT_GT(r.iter_time_s - r.input_wait_s, 4 * 24e-3);
  EXPECT_NEAR(r.iter_time_s, 4 * 32 / 1000.0, 1e-9);
}

}  // namespace
