// How much GPUs of one SKU differ in speed. Chips of the same model run at different clocks under
// the same power cap (manufacturing variability and the chip's power management), so a kernel or a
// training step takes a different time on each GPU of a cluster, and a GPU slow once is slow every
// time (Sinha et al., SC22, arXiv 2208.11035). A synchronous step waits for the job's slowest GPU,
// so a job of N GPUs pays the spread's upper tail, more of it as N grows.
//
// A spread file holds one measured population: each GPU's time over the median GPU's, as
// quantiles (docs/file-formats.md, "gpu_spread"). The job's N GPUs stand for that population: GPU i
// (0-based) of N takes the time at quantile (i + 0.5) / N, so one GPU is the median GPU and the
// slowest of N lies at (N - 0.5) / N, close to the expected slowest of N draws.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dasim::calibration {

inline constexpr const char* kGpuSpreadFormat = "dasim-gpu-spread-1";

struct GpuSpread {
  std::string gpu;     // the GPU model and the cluster it was measured on
  std::string metric;  // what was timed on every GPU
  int64_t gpus_measured = 0;
  // Time over the median GPU's at quantiles p = k / (n - 1), k = 0..n-1: nondecreasing, > 0.
  std::vector<double> relative_time;
};

GpuSpread gpu_spread_from_json(const nlohmann::json& root, const std::string& file);
GpuSpread load_gpu_spread_file(const std::string& file);

// The relative time at quantile p in [0, 1], linear between the listed quantiles.
double relative_time_at(const GpuSpread& spread, double p);

// The time factor of each of `gpus` GPUs, indexed by rank: the quantiles at (i + 0.5) / gpus handed
// to the ranks in an order drawn from `seed` (which rank is slow matters where ranks differ: the
// node of the slowest GPU, an island). The same seed gives the same order on every platform.
std::vector<double> gpu_time_factors(const GpuSpread& spread, int gpus, uint64_t seed);

}  // namespace dasim::calibration
