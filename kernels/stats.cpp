// Median / min / max / standard deviation of repeated timings, and the timing loops themselves.
#include "stats.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace dasim::kernels {

Stats summarize(std::vector<double> times_s) {
  if (times_s.empty()) throw std::invalid_argument("summarize: no timings");
  std::sort(times_s.begin(), times_s.end());
  Stats stats;
  stats.reps = static_cast<int>(times_s.size());
  size_t n = times_s.size();
  stats.median_s = n % 2 == 1 ? times_s[n / 2] : 0.5 * (times_s[n / 2 - 1] + times_s[n / 2]);
  stats.min_s = times_s.front();
  stats.max_s = times_s.back();
  double mean = 0;
  for (double t : times_s) mean += t;
  mean /= static_cast<double>(n);
  double sum_sq = 0;
  for (double t : times_s) sum_sq += (t - mean) * (t - mean);
  stats.stddev_s = n > 1 ? std::sqrt(sum_sq / static_cast<double>(n - 1)) : 0.0;
  return stats;
}

Stats time_repeated(const std::function<void()>& fn, int warmup, int reps) {
  return time_batched(fn, warmup, reps, 1);
}

Stats time_batched(const std::function<void()>& fn, int warmup, int reps, int calls_per_sample) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> times_s;
  times_s.reserve(static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    auto start = clock::now();
    for (int c = 0; c < calls_per_sample; ++c) fn();
    std::chrono::duration<double> elapsed = clock::now() - start;
    times_s.push_back(elapsed.count() / calls_per_sample);
  }
  return summarize(std::move(times_s));
}

}  // namespace dasim::kernels
