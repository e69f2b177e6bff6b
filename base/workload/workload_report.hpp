// What `dasim workload show` prints: the per-layer table, the totals (parameters, multiply-adds,
// FLOPs per sample and per batch, gradient bytes) and the DDP bucket plan, as text or JSON. Kept
// in the library so the CLI only parses arguments and prints.
#pragma once

#include "workload/workload.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace dasim::workload {

struct ReportOptions {
  int batch = 1;                // samples per device for the per-batch totals
  double bucket_cap_bytes = 0;  // 0: DDP's default (25 MiB)
};

std::string render_workload_table(const Workload& workload, const ReportOptions& options);
nlohmann::ordered_json workload_report_json(const Workload& workload, const ReportOptions& options);

}  // namespace dasim::workload
