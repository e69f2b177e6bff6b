// Issue 19's study target: scenarios/paper-scaleup.json with two parallel jobs in <= 20 s wall, as
// `dasim run scenarios/paper-scaleup.json --jobs 2` runs it (its 96 configurations and the
// one-GPU baselines, each in a child process). Also its slowest configuration on its own, VGG-16
// sync SGD on 128 DGX-1 nodes under `auto`: NCCL's trees across fat-tree leaves, simulated whole.
#include "bench_support.hpp"
#include "scenario/runner.hpp"
#include "scenario/scenario.hpp"

#include <benchmark/benchmark.h>

#include <stdexcept>

namespace {

using namespace dasim;

scenario::Scenario paper_scaleup() {
  return scenario::load_scenario(std::string(DASIM_SOURCE_DIR) + "/scenarios/paper-scaleup.json");
}

void run(benchmark::State& state, const scenario::Scenario& sc, const scenario::RunOptions& options) {
  scenario::RunOutput output;
  for (auto _ : state) output = scenario::run_scenario(sc, options);
  state.counters["configurations"] = static_cast<double>(output.rows.size());
  state.counters["peak_rss_MiB"] = bench::children_peak_rss_MiB();
}

void BM_PaperScaleup_Jobs2(benchmark::State& state) {
  scenario::RunOptions options;
  options.jobs = 2;
  options.quiet = true;
  run(state, paper_scaleup(), options);
}

// The configuration by its fields, not its index, so reordering the scenario cannot silently
// swap it for another.
void BM_PaperScaleup_Vgg16Sgd_128Dgx1Nodes(benchmark::State& state) {
  const auto sc = paper_scaleup();
  const auto configurations = scenario::expand(sc);
  scenario::RunOptions options;
  options.quiet = true;
  for (size_t i = 0; i < configurations.size(); ++i) {
    const auto& c = configurations[i];
    if (c.nodes == 128 && sc.platforms[c.platform].spec.name == "dgx1-v100-edr" &&
        sc.workloads[c.workload].name == "vgg16" &&
        sc.schedules[c.schedule].kind == schedules::ScheduleKind::sgd)
      options.configurations = std::vector<size_t>{i};
  }
  if (!options.configurations)
    throw std::logic_error("paper-scaleup.json has no VGG-16 sgd on 128 DGX-1 nodes");
  run(state, sc, options);
}

}  // namespace

BENCHMARK(BM_PaperScaleup_Jobs2)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_PaperScaleup_Vgg16Sgd_128Dgx1Nodes)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
