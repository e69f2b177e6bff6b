// The one result schema shared by the simulator (source = simulated) and the real executor
// (source = measured): one row per configuration, so predictions and measurements can be joined
// column by column. kResultColumns is the only list of the columns: it drives the CSV header and
// cells and the JSON keys, in this order, which is part of the file format
// (docs/file-formats.md); analysis/dasim_analysis/results_io.py reads the same list (a test checks).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dasim::results {

struct ResultRow {
  std::string scenario;
  std::string platform;
  std::string workload;
  std::string schedule;         // sgd | local_sgd | dasgd | diloco | streaming_diloco
  int tau = 1;                  // H for the DiLoCo family
  int delay = 0;                // the overlap steps of streaming_diloco
  std::string schedule_detail;  // every parameter: schedules::describe(), e.g. "diloco(H=100,nesterov ...)"
  std::string collective;  // the scenario's algorithm: auto | ring | tree | hierarchical | nvls | mpi | nccl
  std::string algorithms_used;  // what ran, algorithm/protocol, "+"-joined (auto resolves per collective)
  int nodes = 1;
  int gpus = 1;
  int batch_per_gpu = 1;
  double iter_time_s = 0;
  double throughput_samples_s = 0;
  double speedup = 0;     // NaN when not known (no baseline): empty in CSV, null in JSON
  double efficiency = 0;  // the same
  double compute_s = 0;   // per iteration, mean over workers
  // Of compute_s, the time compute took beyond its own because a collective ran beside it on the
  // GPU (interference; per iteration, mean over workers). NaN when not known (measured rows).
  double compute_slowdown_s = std::numeric_limits<double>::quiet_NaN();
  double comm_s = 0;          // per iteration: time communication was in flight
  double exposed_comm_s = 0;  // per iteration: time a worker waited for communication
  // The slowest rank's figures (ranks of one collective can finish apart; iteration time follows
  // the slowest): max over workers of their per-iteration comm and exposed time.
  double comm_max_s = 0;
  double exposed_comm_max_s = 0;
  std::string source;       // simulated | measured
  std::string calibration;  // calibration file (or "datasheet:..." / "measured-profile")
  // Extra columns (sweep parameters such as inter-node bandwidth); appended after the fixed ones.
  // Extra columns (the executor's): CSV cells as text; in JSON a number, null when empty, else text.
  std::vector<std::pair<std::string, std::string>> extra;
};

struct ResultColumn {
  std::string_view name;
  std::variant<std::string ResultRow::*, int ResultRow::*, double ResultRow::*> field;
};

inline const std::array<ResultColumn, 24> kResultColumns{{
    {"scenario", &ResultRow::scenario},
    {"platform", &ResultRow::platform},
    {"workload", &ResultRow::workload},
    {"schedule", &ResultRow::schedule},
    {"tau", &ResultRow::tau},
    {"delay", &ResultRow::delay},
    {"schedule_detail", &ResultRow::schedule_detail},
    {"collective", &ResultRow::collective},
    {"algorithms_used", &ResultRow::algorithms_used},
    {"nodes", &ResultRow::nodes},
    {"gpus", &ResultRow::gpus},
    {"batch_per_gpu", &ResultRow::batch_per_gpu},
    {"iter_time_s", &ResultRow::iter_time_s},
    {"throughput_samples_s", &ResultRow::throughput_samples_s},
    {"speedup", &ResultRow::speedup},
    {"efficiency", &ResultRow::efficiency},
    {"compute_s", &ResultRow::compute_s},
    {"compute_slowdown_s", &ResultRow::compute_slowdown_s},
    {"comm_s", &ResultRow::comm_s},
    {"exposed_comm_s", &ResultRow::exposed_comm_s},
    {"comm_max_s", &ResultRow::comm_max_s},
    {"exposed_comm_max_s", &ResultRow::exposed_comm_max_s},
    {"source", &ResultRow::source},
    {"calibration", &ResultRow::calibration},
}};

// The fixed column names, in order.
std::vector<std::string> result_columns();

// CSV with a header line; numbers printed with 9 significant digits so reruns are byte-identical.
// Fields holding a comma, a quote or a newline are quoted as RFC 4180 says.
std::string to_csv(const std::vector<ResultRow>& rows);
// Key order follows kResultColumns so JSON files read like the CSV.
nlohmann::ordered_json to_json(const ResultRow& row);
nlohmann::ordered_json to_json(const std::vector<ResultRow>& rows);

}  // namespace dasim::results
