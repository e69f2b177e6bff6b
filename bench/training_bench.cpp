// Performance targets of the simulator proper (issue 5): ResNet-50 DaSGD on 1024 GPUs at <= 1 s
// wall per simulated iteration, and one 16,384-GPU configuration in <= 60 s. Wall time includes
// building the platform; each run simulates two DaSGD periods (tau = 4): a warm-up period whose
// averaging is waited for in the measured one.
#include "bench_support.hpp"
#include "calibration/calibration.hpp"
#include "engine/training_result_wire.hpp"
#include "engine/training_simulation.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "workload/workload_file.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace dasim;

void run_dasgd(benchmark::State& state, const std::string& platform_file, const std::string& calibration_file,
               int nodes, collectives::Algorithm algorithm) {
  engine::TrainingConfig config;
  config.platform = platform::load_platform(bench::preset(platform_file), nodes);
  config.workload = workload::load_workload("resnet50");
  config.calibration = calibration::load_calibration(bench::preset("calibration/" + calibration_file));
  config.batch_per_gpu = 32;
  config.schedule.kind = schedules::ScheduleKind::dasgd;
  config.schedule.tau = 4;
  config.schedule.delay = 1;
  config.collective.algorithm = algorithm;
  config.warmup_iterations = 4;
  config.measured_iterations = 4;
  double iter_s = 0;
  for (auto _ : state) {
    iter_s = engine::simulate_training_isolated(config).iter_time_s;
  }
  state.counters["gpus"] = config.platform.total_gpus();
  state.counters["simulated_iter_ms"] = iter_s * 1e3;
  state.counters["iterations"] = config.warmup_iterations + config.measured_iterations;
  state.counters["peak_rss_MiB"] = bench::children_peak_rss_MiB();
}

void BM_ResNet50Dasgd_1024Gpus_8Iterations(benchmark::State& state) {
  run_dasgd(state, "dgx1-v100-edr.json", "v100-datasheet.json", 128, collectives::Algorithm::hierarchical);
}
void BM_ResNet50Dasgd_16384Gpus_8Iterations(benchmark::State& state) {
  run_dasgd(state, "dgx-a100-hdr.json", "a100-datasheet.json", 2048, collectives::Algorithm::hierarchical);
}

BENCHMARK(BM_ResNet50Dasgd_1024Gpus_8Iterations)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_ResNet50Dasgd_16384Gpus_8Iterations)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
