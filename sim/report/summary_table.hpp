// The table `dasim run` prints: one line per configuration with the numbers a reader compares
// first (iteration time, speedup, efficiency, where the time goes).
#pragma once

#include "results/result_row.hpp"

#include <string>
#include <vector>

namespace dasim::report {

// `numbers`: each row's configuration number (the `#` column, what --trace takes); by default
// the rows' positions.
std::string summary_table(const std::vector<results::ResultRow>& rows,
                          const std::vector<size_t>& numbers = {});

}  // namespace dasim::report
