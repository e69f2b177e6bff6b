// What `dasim run` and `dasim merge` both leave and print: results.csv and results.json in a
// result directory, the plots drawn from them, and the summary with the calibrations the numbers
// rest on. One implementation, so a merged result set is written exactly as a local run's.
#pragma once

#include "common/result_directory.hpp"
#include "results/result_row.hpp"
#include "results/shard_file.hpp"

#include <string>
#include <vector>

namespace dasim::cli {

// Into out.staging(): results.csv and results.json.
void write_result_files(const ResultDirectory& out, const results::ResultsHeader& header,
                        const std::vector<results::ResultRow>& rows);
// The plots of out.staging()/results.csv (analysis/), as paths they will have after commit().
std::vector<std::string> draw_plots(const ResultDirectory& out, const std::string& sweep_column);
// The summary table (`numbers`: the rows' configuration numbers, by default their positions),
// then the calibrations by name and hash, and each precision that fell back to the fp32 rate.
void print_summary(const std::vector<results::ResultRow>& rows, const std::vector<size_t>& numbers = {});

}  // namespace dasim::cli
