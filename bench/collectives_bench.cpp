// Performance targets of the collective layer (issue 4), wall time of one simulated allreduce
// including the platform build, peak memory of the simulating process as a counter:
//   1024-GPU ring allreduce of 1 GiB <= 2 s; 16,384-GPU hierarchical allreduce <= 60 s, <= 2 GiB.
#include "bench_support.hpp"
#include "collectives/collective_benchmark.hpp"
#include "platform/platform_loader.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace dasim::collectives;

void run_allreduce(benchmark::State& state, const std::string& file, int nodes, Algorithm algorithm,
                   Granularity granularity) {
  auto spec = dasim::platform::load_platform(dasim::bench::preset(file), nodes);
  CollectiveOptions options;
  options.algorithm = algorithm;
  options.granularity = granularity;
  double simulated_s = 0;
  for (auto _ : state) simulated_s = run_collective_sweep(spec, options, Op::allreduce, {1 << 30})[0].time_s;
  state.counters["gpus"] = spec.total_gpus();
  state.counters["simulated_ms"] = simulated_s * 1e3;
  state.counters["peak_rss_MiB"] = dasim::bench::children_peak_rss_MiB();
}

void BM_RingAllreduce1GiB_1024Gpus(benchmark::State& state) {
  run_allreduce(state, "flat-100gbe-64.json", 1024, Algorithm::ring, Granularity::coarse);
}
void BM_RingAllreduce1GiB_1024Gpus_Fine(benchmark::State& state) {
  run_allreduce(state, "flat-100gbe-64.json", 1024, Algorithm::ring, Granularity::fine);
}
void BM_TreeAllreduce1GiB_256Gpus(benchmark::State& state) {
  run_allreduce(state, "flat-100gbe-64.json", 256, Algorithm::tree, Granularity::coarse);
}
void BM_HierarchicalAllreduce1GiB_16384Gpus(benchmark::State& state) {
  run_allreduce(state, "dgx-a100-hdr.json", 2048, Algorithm::hierarchical, Granularity::coarse);
}

BENCHMARK(BM_RingAllreduce1GiB_1024Gpus)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_RingAllreduce1GiB_1024Gpus_Fine)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_TreeAllreduce1GiB_256Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_HierarchicalAllreduce1GiB_16384Gpus)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
