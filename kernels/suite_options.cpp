// Sweep sizes of the full and the quick suites. CPU full: square GEMMs 64..4096 (the largest sizes
// reach the BLAS's asymptotic rate), 5 repetitions, batch 32. Quick: 64..512, batch 1, a handful
// of shapes, 3 repetitions: enough for the self-consistency tests, seconds to run.
#include "suite_options.hpp"

#include <utility>

namespace dasim::kernels {

double SuiteOptions::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SuiteOptions default_suite_options(bool quick, const std::string& device) {
  SuiteOptions options;
  options.quick = quick;
  bool gpu = device == "cuda";
  if (quick) {
    options.batches = gpu ? std::vector<int>{1, 8} : std::vector<int>{1};
    options.warmup = 1;
    options.reps = 3;
    options.square_gemm_sizes = {64, 128, 256, 512};
  } else {
    options.batches = gpu ? std::vector<int>{32, 64, 128, 256} : std::vector<int>{32};
    options.warmup = 1;
    options.reps = 5;
    options.square_gemm_sizes = {64, 128, 256, 512, 1024, 2048, 4096};
  }
  return options;
}

std::vector<GemmSize> gpu_gemm_sweep(bool quick) {
  std::vector<GemmSize> sizes;
  std::vector<int> squares =
      quick ? std::vector<int>{256, 512, 1024}
            : std::vector<int>{192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
  for (int s : squares) sizes.push_back({s, s, s, "square"});
  std::vector<int> tokens = quick ? std::vector<int>{128} : std::vector<int>{128, 512, 2048, 8192};
  std::vector<int> hidden = quick ? std::vector<int>{768} : std::vector<int>{768, 1024, 4096};
  for (int h : hidden)
    for (int t : tokens)
      for (auto [n, k] : {std::pair{3 * h, h}, std::pair{h, h}, std::pair{4 * h, h}, std::pair{h, 4 * h}})
        sizes.push_back({t, n, k, "transformer"});
  return sizes;
}

}  // namespace dasim::kernels
