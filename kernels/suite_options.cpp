// Sweep sizes of the full and the quick suites. Full: square GEMMs 256..4096 (the largest sizes
// reach the BLAS's asymptotic rate), 5 repetitions, batch 32. Quick: 64..512, batch 1, a handful of
// shapes, 3 repetitions: enough for the self-consistency tests, seconds to run.
#include "suite_options.hpp"

namespace dasim::kernels {

SuiteOptions default_suite_options(bool quick) {
  SuiteOptions options;
  options.quick = quick;
  if (quick) {
    options.batch = 1;
    options.warmup = 1;
    options.reps = 3;
    options.square_gemm_sizes = {64, 128, 256, 512};
  } else {
    options.batch = 32;
    options.warmup = 1;
    options.reps = 5;
    options.square_gemm_sizes = {64, 128, 256, 512, 1024, 2048, 4096};
  }
  return options;
}

}  // namespace dasim::kernels
