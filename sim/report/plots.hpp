// `dasim run --plot`: calls the analysis/ scripts (Debian's python3 with matplotlib) on a
// results file, so one command gives numbers and pictures.
#pragma once

#include <string>
#include <vector>

namespace dasim::report {

// Directory of the analysis scripts: $DASIM_ANALYSIS_DIR, else share/dasim/analysis beside the
// binary's bin/ directory (install and build trees alike).
std::string analysis_dir();

// Writes scaleup.png, scaleup_efficiency.png and breakdown.png (and sizing.png when
// `sweep_column` is not empty) next to `results_csv`; returns the files written. Throws
// RuntimeFailure naming the script when one fails.
std::vector<std::string> make_plots(const std::string& results_csv, const std::string& out_dir,
                                    const std::string& sweep_column);

}  // namespace dasim::report
