// What a calibration run measures and how hard: the shapes to time (the distinct conv and GEMM
// shapes of the shipped workloads), the batch, and the sweep sizes and repetitions. --quick picks
// small sizes and few repetitions so the whole suite runs in a few seconds under ctest.
#pragma once

#include "workload/layer.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dasim::kernels {

struct ShapeSet {
  std::vector<workload::ConvShape> convs;  // distinct, in first-seen order
  std::vector<workload::GemmShape> gemms;  // distinct, in first-seen order
};

struct SuiteOptions {
  bool quick = false;
  int batch = 32;  // the scenario batch size the per-shape times are for
  int warmup = 1;
  int reps = 5;
  std::vector<int> square_gemm_sizes;
  ShapeSet shapes;
  // Where progress lines go (stderr from the CLI); may be empty.
  std::function<void(const std::string&)> progress;
  // Directory holding helper binaries (dasim-mpi-allreduce-bench); empty skips MPI.
  std::string helper_dir;

  void say(const std::string& line) const {
    if (progress) progress(line);
  }
};

// Sizes and repetitions of the full and the quick suite.
SuiteOptions default_suite_options(bool quick);

}  // namespace dasim::kernels
