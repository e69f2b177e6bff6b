// Shared helpers for the benchmarks: preset paths and the peak memory of the simulation child
// processes (every simulation runs in a forked child, so the parent's RSS says nothing).
#pragma once

#include <sys/resource.h>

#include <string>

namespace dasim::bench {

inline std::string preset(const std::string& name) {
  return std::string(DASIM_SOURCE_DIR) + "/platforms/" + name;
}

inline double children_peak_rss_MiB() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace dasim::bench
