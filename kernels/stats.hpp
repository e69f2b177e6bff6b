// Timing statistics of a repeated measurement. Every microbenchmark runs warm-up calls first (to
// fault in pages, fill caches and let BLAS spin up its threads) and then times each repetition on
// its own, so the median is robust to the odd preempted run on a shared machine.
#pragma once

#include <functional>
#include <vector>

namespace dasim::kernels {

struct Stats {
  int reps = 0;
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  double stddev_s = 0;  // sample standard deviation (n-1); 0 for a single repetition
};

// Summarises per-repetition times. Throws std::invalid_argument on an empty vector.
Stats summarize(std::vector<double> times_s);

// Calls `fn` `warmup` times untimed, then `reps` times, timing each call with a steady clock.
Stats time_repeated(const std::function<void()>& fn, int warmup, int reps);

// Like time_repeated, but each timed sample runs `fn` `calls_per_sample` times and records the
// mean per call: used for calls far shorter than the clock's resolution (launch overhead).
Stats time_batched(const std::function<void()>& fn, int warmup, int reps, int calls_per_sample);

}  // namespace dasim::kernels
