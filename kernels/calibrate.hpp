// `dasim calibrate`: runs the CPU or the CUDA suite, fits the compute-model figures and writes a
// "dasim-calibration/1" file atomically. This is the library side of the CLI command.
#pragma once

#include "calibration/calibration.hpp"
#include "suite_options.hpp"
#include "suite_result.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dasim::kernels {

struct CalibrateRequest {
  std::string device;  // "cpu" or "cuda"
  bool quick = false;
  std::vector<int> batches;  // per-shape batches; empty: the device's default (suite_options.hpp)
  double time_budget_s = 0;  // SuiteOptions::time_budget_s; 0: no limit
  std::string out;
  std::string command_line;  // recorded in the file
  std::string helper_dir;    // where dasim-mpi-allreduce-bench lives (the dasim binary's directory)
  std::function<void(const std::string&)> progress;
};

// The calibration of a finished suite: fitted block, per-shape times, every measurement, and in
// "sources" where each fitted figure came from and what was skipped.
calibration::Calibration make_calibration(const SuiteResult& result, const std::string& command_line,
                                          const std::string& date);

// The distinct conv and GEMM shapes of the built-in ResNet-50 and VGG-16, and the activations of
// ResNet-50's BatchNorm layers that a ReLU follows (those workload::apply_fusion merges with
// bn_relu; the output of the conv before each). Quick: the three cheapest conv shapes and the two
// smallest activations.
ShapeSet workload_shapes(bool quick);

// Runs the suite and writes request.out. Throws RuntimeFailure when the device is unavailable
// ("no CUDA device found: ...; use --device cpu") and InputError for a bad device name.
calibration::Calibration run_calibration(const CalibrateRequest& request);

// True when this build includes the CUDA suite.
bool cuda_suite_built();

}  // namespace dasim::kernels
