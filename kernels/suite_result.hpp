// What a calibration suite (CPU or CUDA) returns: the device it ran on, every measurement with its
// statistics, the per-shape times, and notes on what was skipped and why.
#pragma once

#include "measurement.hpp"

#include <string>
#include <vector>

namespace dasim::kernels {

struct DeviceInfo {
  std::string name;
  std::string kind;  // "cpu" or "cuda"
  std::string driver;
  std::string toolkit;
  std::string cpu_model;
};

struct SuiteResult {
  DeviceInfo device;
  std::vector<Measurement> measurements;
  std::vector<ShapeTime> per_shape;
  std::vector<std::string> notes;
  // Link fits from communication benchmarks, keyed by what was measured (fit-links reports).
  nlohmann::json links = nlohmann::json::object();
};

}  // namespace dasim::kernels
