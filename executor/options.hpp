// Command line of dasim-train, parsed and validated before any MPI work: every rank parses the same
// argv, so all ranks reach the same verdict and bad arguments make every rank exit 2 without a
// collective. Files named on the command line are checked later (they may exist on some nodes only)
// and that verdict is agreed with an allreduce.
#pragma once

#include "common/enum_names.hpp"
#include "dataset.hpp"
#include "schedules/periods.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dasim::executor {

enum class Device { cpu, cuda };
inline constexpr EnumNames<Device, 2> kDeviceNames{{{
    {Device::cpu, "cpu"},
    {Device::cuda, "cuda"},
}}};

struct TrainOptions {
  Device device = Device::cpu;
  schedules::ScheduleSpec schedule;  // with the sgd bucket cap (default 256 KiB: the MLP is small)
  std::vector<int> hidden{256, 256};
  int batch = 64;  // per rank
  float lr = 0.05f;
  int steps = 200;
  uint64_t seed = 1;
  SyntheticSpec synthetic;
  std::string mnist_images, mnist_labels;  // both or neither
  double target_loss = 0.3;
  int target_window = 10;  // steps in the moving average compared with target_loss
  int warmup_steps = 5;    // excluded from the step-time statistics
  std::string output = "dasim-train.json";
  std::string csv;  // default: output with .csv
  std::string profile;
  std::string scenario = "dasim-train";
  double baseline_throughput = 0;  // samples/s of a 1-rank run, for speedup/efficiency
  bool check_consistency = false;
  bool verify = false;
  int blas_threads = 1;
  double comm_timeout_s = 20;
  bool quiet = false;
  bool print_plan = false;  // print the bucket plan and timed window as JSON, train nothing
};

struct ParsedOptions {
  std::optional<TrainOptions> options;  // empty when only help was requested
  std::string help;                     // text to print for --help
};

// Throws InputError (one line naming the flag and what was expected) for bad arguments.
ParsedOptions parse_train_options(int argc, const char* const* argv);

}  // namespace dasim::executor
