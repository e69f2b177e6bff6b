// Performance targets of the simulator proper. Issue 5: ResNet-50 DaSGD on 1024 GPUs at <= 1 s
// wall per simulated iteration, and one 16,384-GPU configuration in <= 60 s. Issue 19: sync SGD
// with DDP's 25 MiB buckets on 8 rings at 16,384 GPUs in <= 60 s and <= 4 GiB, sync SGD and DaSGD at
// 131,072 GPUs in <= 10 min and <= 16 GiB, GPT-2 XL on 4,096 GPUs with the hierarchical allreduce
// in <= 60 s. These symmetric runs fold onto two nodes (engine/symmetric_fold.hpp); the `Whole`
// benchmarks simulate every node (collective.fold false), the path asymmetric runs take. Jitter
// folds nothing and desynchronises the ranks: its benchmark runs NCCL's trees, whose flows start
// together when the last rank has arrived (34.5 s before they did, 1.95 s after, 2026-12-03).
// Wall time includes building the platform.
#include "bench_support.hpp"
#include "calibration/calibration.hpp"
#include "engine/training_result_wire.hpp"
#include "engine/training_simulation.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "workload/precision.hpp"
#include "workload/workload_file.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace dasim;

engine::TrainingConfig resnet50(const std::string& platform_file, const std::string& calibration_file,
                                int nodes) {
  engine::TrainingConfig config;
  config.platform = platform::load_platform(bench::preset(platform_file), nodes);
  config.workload = workload::load_workload("resnet50");
  config.calibration = calibration::load_calibration(bench::preset("calibration/" + calibration_file));
  config.batch_per_gpu = 32;
  return config;
}

// Two DaSGD periods (tau = 4): a warm-up period whose averaging is waited for in the measured one.
engine::TrainingConfig dasgd(engine::TrainingConfig config, collectives::Algorithm algorithm) {
  config.schedule.kind = schedules::ScheduleKind::dasgd;
  config.schedule.tau = 4;
  config.schedule.delay = 1;
  config.collective.algorithm = algorithm;
  config.warmup_iterations = 4;
  config.measured_iterations = 4;
  return config;
}

// Issue 19's configuration: sync SGD, 25 MiB buckets (4 for ResNet-50), a ring per NIC (8 on the
// DGX A100), 4 warm-up + 8 measured iterations.
engine::TrainingConfig sgd(engine::TrainingConfig config) {
  config.schedule.bucket_cap_bytes = 25.0 * 1024 * 1024;
  config.collective.algorithm = collectives::Algorithm::ring;
  config.collective.ring_channels = 8;
  config.warmup_iterations = 4;
  config.measured_iterations = 8;
  return config;
}

engine::TrainingConfig whole(engine::TrainingConfig config) {
  config.collective.fold = false;
  return config;
}

void run(benchmark::State& state, const engine::TrainingConfig& config) {
  engine::TrainingResult result;
  for (auto _ : state) {
    result = engine::simulate_training_isolated(config);
  }
  state.counters["gpus"] = config.platform.total_gpus();
  state.counters["simulated_nodes"] = result.simulated_nodes;
  state.counters["simulated_iter_ms"] = result.iter_time_s * 1e3;
  state.counters["iterations"] = config.warmup_iterations + config.measured_iterations;
  state.counters["peak_rss_MiB"] = bench::children_peak_rss_MiB();
}

void BM_ResNet50Dasgd_1024Gpus_8Iterations(benchmark::State& state) {
  run(state, dasgd(resnet50("dgx1-v100-edr.json", "v100-datasheet.json", 128),
                   collectives::Algorithm::hierarchical));
}
void BM_ResNet50Dasgd_1024Gpus_8Iterations_Whole(benchmark::State& state) {
  run(state, whole(dasgd(resnet50("dgx1-v100-edr.json", "v100-datasheet.json", 128),
                         collectives::Algorithm::hierarchical)));
}
void BM_ResNet50Dasgd_16384Gpus_8Iterations(benchmark::State& state) {
  run(state, dasgd(resnet50("dgx-a100-hdr.json", "a100-datasheet.json", 2048),
                   collectives::Algorithm::hierarchical));
}
void BM_ResNet50Sgd_1024Gpus_Whole(benchmark::State& state) {
  run(state, whole(sgd(resnet50("dgx-a100-hdr.json", "a100-datasheet.json", 128))));
}
void BM_ResNet50Sgd_16384Gpus(benchmark::State& state) {
  run(state, sgd(resnet50("dgx-a100-hdr.json", "a100-datasheet.json", 2048)));
}
void BM_ResNet50Sgd_131072Gpus(benchmark::State& state) {
  run(state, sgd(resnet50("dgx-a100-hdr.json", "a100-datasheet.json", 16384)));
}
void BM_ResNet50Dasgd_131072Gpus(benchmark::State& state) {
  auto config =
      dasgd(resnet50("dgx-a100-hdr.json", "a100-datasheet.json", 16384), collectives::Algorithm::ring);
  config.collective.ring_channels = 8;
  run(state, config);
}
// ResNet-50 sync SGD on 512 single-GPU nodes, 4 buckets on double binary trees, jitter 0.001.
void BM_ResNet50SgdTreesJitter_512Gpus(benchmark::State& state) {
  auto config = resnet50("flat-100gbe-64.json", "v100-datasheet.json", 512);
  config.schedule.bucket_cap_bytes = 25.0 * 1024 * 1024;
  config.collective.algorithm = collectives::Algorithm::tree;
  config.jitter_stddev = 0.001;
  config.seed = 1;
  config.warmup_iterations = 4;
  config.measured_iterations = 8;
  run(state, config);
}
// scenarios/modern-llm.json's configuration at 4,096 GPUs (dgx-h100-ndr x 512): 8 sequences of
// `sequence_length` tokens per H100, bf16, sync SGD with DDP's default 25 MiB buckets (the smaller
// of the scenario's two bucket sizes), 1 + 8 iterations.
engine::TrainingConfig modern_llm_4096(const std::string& model, int sequence_length) {
  engine::TrainingConfig config;
  config.platform = platform::load_platform(bench::preset("dgx-h100-ndr.json"), 512);
  workload::WorkloadOptions options;
  options.sequence_length = sequence_length;
  options.precision = workload::parse_precision("bf16");
  config.workload = workload::load_workload(model, options);
  config.calibration = calibration::load_calibration(bench::preset("calibration/h100-datasheet.json"));
  config.precision = "bf16";
  config.batch_per_gpu = 8;
  config.schedule.bucket_cap_bytes = 25.0 * 1024 * 1024;
  config.warmup_iterations = 1;
  config.measured_iterations = 8;
  return config;
}
// GPT-2 XL on the hierarchical allreduce (the scenario's collective until 2026-12-03).
void BM_Gpt2XlSgdHierarchical_4096Gpus(benchmark::State& state) {
  auto config = modern_llm_4096("gpt2-xl", 1024);
  config.collective.algorithm = collectives::Algorithm::hierarchical;
  run(state, config);
}
// BERT-large on NCCL's choice (trees across the fat tree's leaves from 32 GPUs up), folded with
// collective.fold_trees_across_leaves: more than 10 minutes node by node.
void BM_BertLargeSgdAutoTreesAcrossLeaves_4096Gpus(benchmark::State& state) {
  auto config = modern_llm_4096("bert-large", 512);
  config.collective.algorithm = collectives::Algorithm::automatic;
  config.collective.protocol = collectives::Protocol::automatic;
  config.collective.fold_trees_across_leaves = true;
  run(state, config);
}

BENCHMARK(BM_ResNet50Dasgd_1024Gpus_8Iterations)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_ResNet50Dasgd_1024Gpus_8Iterations_Whole)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ResNet50Dasgd_16384Gpus_8Iterations)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ResNet50Sgd_1024Gpus_Whole)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ResNet50Sgd_16384Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ResNet50Sgd_131072Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ResNet50Dasgd_131072Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Gpt2XlSgdHierarchical_4096Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ResNet50SgdTreesJitter_512Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_BertLargeSgdAutoTreesAcrossLeaves_4096Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
