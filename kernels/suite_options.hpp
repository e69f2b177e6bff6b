// What a calibration run measures and how hard: the shapes to time (the distinct conv and GEMM
// shapes of the shipped workloads, the BatchNorm + ReLU activations of ResNet-50), the batches,
// and the sweep sizes and repetitions. --quick picks small sizes and few repetitions so the whole
// suite runs in a few seconds under ctest.
#pragma once

#include "workload/layer.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace dasim::kernels {

// One activation tensor of a BatchNorm that a ReLU follows (per sample: channels x height x width).
struct Activation {
  int channels = 0, h = 0, w = 0;
  double elements() const { return double(channels) * h * w; }
};

struct ShapeSet {
  std::vector<workload::ConvShape> convs;  // distinct, in first-seen order
  std::vector<workload::GemmShape> gemms;  // distinct, in first-seen order
  std::vector<Activation> bn_relu;         // distinct, in first-seen order
};

// A GEMM of the device sweep: C[m x n] = A[m x k] B[k x n]; family "square" or "transformer".
struct GemmSize {
  int m = 0, n = 0, k = 0;
  const char* family = "square";
  double flops() const { return 2.0 * m * n * k; }
};

struct SuiteOptions {
  bool quick = false;
  // The batches the per-shape conv and workload-GEMM times are measured at (the scenario batch
  // sizes the compute model can then look up exactly).
  std::vector<int> batches{32};
  int warmup = 1;
  int reps = 5;
  std::vector<int> square_gemm_sizes;  // CPU suite
  ShapeSet shapes;
  // Once this many seconds have passed since `start`, the suite starts no further optional
  // benchmark (the rest of the convolutions, BN + ReLU, interference, copies, the NCCL sweep) and
  // says so in a note; 0: no limit. The GEMM sweep and the bandwidth and launch kernels, which
  // the fit needs, always run.
  double time_budget_s = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  // Where progress lines go (stderr from the CLI); may be empty.
  std::function<void(const std::string&)> progress;
  // Directory holding helper binaries (dasim-mpi-allreduce-bench); empty skips MPI.
  std::string helper_dir;

  void say(const std::string& line) const {
    if (progress) progress(line);
  }
  double elapsed_s() const;
  bool over_budget() const { return time_budget_s > 0 && elapsed_s() > time_budget_s; }
};

// Sizes and repetitions of the full and the quick suite of a device ("cpu" or "cuda"): batches
// cpu {32} / quick {1}, cuda {32, 64, 128, 256} / quick {1, 8}.
SuiteOptions default_suite_options(bool quick, const std::string& device = "cpu");

// The GPU GEMM sweep: squares from 192 to 8192 (1.4e7 to 1.1e12 FLOPs) and transformer-like
// shapes, tokens t in {128, 512, 2048, 8192} x hidden h in {768, 1024, 4096}: the QKV projection
// (t, 3h, h), the output projection (t, h, h) and the MLP (t, 4h, h) and (t, h, 4h).
// Quick: squares 256, 512, 1024 and the four shapes of t = 128, h = 768.
std::vector<GemmSize> gpu_gemm_sweep(bool quick);

}  // namespace dasim::kernels
