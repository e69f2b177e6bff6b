#include "result_set.hpp"

#include "collectives/symmetry.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/joined.hpp"
#include "common/units.hpp"
#include "report/plots.hpp"
#include "report/summary_table.hpp"
#include "runtime/interruption.hpp"
#include "workload/precision.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dasim::cli {

void write_result_files(const ResultDirectory& out, const results::ResultsHeader& header,
                        const std::vector<results::ResultRow>& rows) {
  const auto doc = results::results_document(header, rows);
  runtime::throw_if_interrupted();
  write_file_atomically((out.staging() / "results.csv").string(), results::to_csv(rows));
  write_file_atomically((out.staging() / "results.json").string(), doc.dump(2) + "\n");
}

std::vector<std::string> draw_plots(const ResultDirectory& out, const std::string& sweep_column) {
  std::vector<std::string> plots;
  try {
    for (const auto& file :
         report::make_plots((out.staging() / "results.csv").string(), out.staging().string(), sweep_column))
      plots.push_back((out.final_path() / std::filesystem::path(file).filename()).string());
  } catch (const RuntimeFailure&) {
    runtime::throw_if_interrupted();  // the plotter died of the same Ctrl-C: an interruption
    throw;
  }
  runtime::throw_if_interrupted();  // a signal while plotting: still nothing left behind
  return plots;
}

void print_summary(const std::vector<results::ResultRow>& rows, const std::vector<size_t>& numbers) {
  fmt::print("{}", report::summary_table(rows, numbers));
  // Say which compute figures the numbers rest on: datasheet assumptions are not measurements.
  std::set<std::pair<std::string, std::string>> calibrations;
  for (const auto& row : rows) calibrations.insert({row.calibration, row.calibration_sha256});
  for (const auto& [c, sha256] : calibrations) {
    // Mixed sites name a calibration per site, "+"-joined: each file's short hash.
    std::vector<std::string> short_hashes;
    for (const auto& hash : split_joined(sha256, '+')) short_hashes.push_back(hash.substr(0, 12));
    fmt::print("calibration: {}, sha256 {}\n", c, fmt::join(short_hashes, "+"));
  }
  // A precision the device has no rate for ran at the fp32 rate: say so, not only in a column.
  std::set<std::string> fallbacks;
  for (const auto& row : rows) {
    const std::string asked = workload::compute_precision(workload::parse_precision(row.precision));
    if (row.compute_precision != asked)
      fallbacks.insert(fmt::format("precision: {} on {} ran at the {} rate (its calibration has no {} rate)",
                                   row.precision, row.platform, row.compute_precision, asked));
  }
  for (const auto& f : fallbacks) fmt::print("{}\n", f);
  // Which runs were folded: their figures are the whole run's, their timelines two nodes'.
  const auto folded = std::count_if(rows.begin(), rows.end(), [](const results::ResultRow& row) {
    return row.source == "simulated" && row.simulated_nodes < row.nodes;
  });
  if (folded > 0)
    fmt::print(
        "fold: {} of {} configurations were symmetric and simulated on 2 of their nodes "
        "(collective.fold: false simulates every node)\n",
        folded, rows.size());
  // And why the others of more than 2 nodes were not (they cost what the whole run costs), one line
  // per reason whatever the collective's size (results.csv has it).
  std::map<std::string, int> reasons;
  const std::regex size(" of [0-9]+ bytes");
  for (const auto& row : rows)
    if (!row.not_folded_because.empty()) ++reasons[std::regex_replace(row.not_folded_because, size, "")];
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [reason, count] : reasons) by_count.emplace_back(-count, reason);
  std::sort(by_count.begin(), by_count.end());  // most frequent first, then by text: deterministic
  constexpr size_t kReasonsShown = 3;
  for (size_t k = 0; k < std::min(by_count.size(), kReasonsShown); ++k)
    fmt::print("not folded: {} ({})\n", by_count[k].second,
               units::format_count(-by_count[k].first, "configuration"));
  if (by_count.size() > kReasonsShown)
    fmt::print("not folded: {} other reasons (results.csv, column not_folded_because)\n",
               by_count.size() - kReasonsShown);
  // Trees across leaves are the slow case users meet at scale under `auto`: say how to fold them.
  const bool trees_across_leaves = std::any_of(reasons.begin(), reasons.end(), [](const auto& reason) {
    return reason.first.find(collectives::kTreesAcrossLeaves) != std::string::npos;
  });
  if (trees_across_leaves)
    fmt::print(
        "fold hint: collective.fold_trees_across_leaves folds trees across fat-tree leaves too (never "
        "slower than every node simulated, up to 2.6% faster: docs/performance.md, \"Trees\")\n");
}

}  // namespace dasim::cli
