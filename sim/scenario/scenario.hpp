// A scenario file: which platforms (and node counts), workloads, batch, schedules, collective and
// iteration counts to simulate, optionally sweeping one platform parameter. expand() lists the
// configurations it stands for, in a fixed order (the order of the results file).
// The format is documented in docs/file-formats.md.
#pragma once

#include "calibration/calibration.hpp"
#include "collectives/collective_types.hpp"
#include "platform/platform_spec.hpp"
#include "schedules/schedule_spec.hpp"
#include "workload/workload.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dasim::scenario {

struct PlatformEntry {
  platform::PlatformSpec spec;  // as loaded (its own node count); configurations override nodes
  std::vector<int> nodes;       // node counts to simulate
  std::string calibration_file;
  calibration::Calibration calibration;
};

struct Sweep {
  std::string parameter;  // one of platform::sweep_parameters()
  std::vector<double> values;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::vector<PlatformEntry> platforms;
  std::vector<workload::Workload> workloads;
  int batch_per_gpu = 32;
  std::string precision = "fp32";  // a workload precision mode (workload/precision.hpp)
  std::string fusion = "none";     // workload/fusion.hpp
  std::vector<schedules::ScheduleSpec> schedules;
  collectives::CollectiveOptions collective;
  int iterations = 8;
  int warmup = 4;
  double jitter_stddev = 0;
  uint64_t seed = 1;
  std::map<int, double> slowdown_by_rank;
  std::optional<Sweep> sweep;
};

struct Configuration {
  size_t platform = 0;
  size_t workload = 0;
  size_t schedule = 0;
  int nodes = 1;
  std::optional<double> sweep_value;
};

Scenario load_scenario(const std::string& file);
std::vector<Configuration> expand(const Scenario& scenario);

}  // namespace dasim::scenario
