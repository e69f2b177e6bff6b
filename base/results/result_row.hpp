// The one result schema shared by the simulator (source = simulated) and the real executor
// (source = measured): one row per configuration, so predictions and measurements can be joined
// column by column. Column order is the CSV order and is part of the file format.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dasim::results {

struct ResultRow {
  std::string scenario;
  std::string platform;
  std::string workload;
  std::string schedule;  // sgd | local_sgd | dasgd
  int tau = 1;
  int delay = 0;
  std::string collective;  // ring | tree | hierarchical | mpi | nccl
  int nodes = 1;
  int gpus = 1;
  int batch_per_gpu = 1;
  double iter_time_s = 0;
  double throughput_samples_s = 0;
  double speedup = 0;
  double efficiency = 0;
  double compute_s = 0;       // per iteration, mean over workers
  double comm_s = 0;          // per iteration: time communication was in flight
  double exposed_comm_s = 0;  // per iteration: time a worker waited for communication
  std::string source;         // simulated | measured
  std::string calibration;    // calibration file (or "datasheet:..." / "measured-profile")
  // Extra columns (sweep parameters such as inter-node bandwidth); appended after the fixed ones.
  std::vector<std::pair<std::string, std::string>> extra;
};

const std::vector<std::string>& result_columns();

// CSV with a header line; numbers printed with 9 significant digits so reruns are byte-identical.
std::string to_csv(const std::vector<ResultRow>& rows);
// Key order follows result_columns() so JSON files read like the CSV.
nlohmann::ordered_json to_json(const ResultRow& row);
nlohmann::ordered_json to_json(const std::vector<ResultRow>& rows);

}  // namespace dasim::results
