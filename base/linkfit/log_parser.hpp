// Reads communication benchmark logs into (message bytes, time per operation) samples, so link
// latency and bandwidth can be fitted from real runs. Formats, detected from their header line:
//   nccl-tests table   "#  size  count  type  redop  root  time  algbw  busbw  #wrong ..." (bytes, us);
//                      the out-of-place time column is used, busbw/algbw gives the bus factor.
//   CSV                a header row naming a "size" column (bytes) and a "time" column (us, or
//                      seconds when the name ends in "_s" / "(s)"), optional algbw/busbw columns.
//   OSU / MPI tables   "# Size  Avg Latency(us) ..." (time per operation in us) or
//                      "# Size  Bandwidth (MB/s)" (converted to time = bytes / bandwidth).
// Anything else is an InputError naming the file and the line.
#pragma once

#include <string>
#include <vector>

namespace dasim::linkfit {

struct Sample {
  double bytes = 0;
  double time_s = 0;
  int line = 0;                 // 1-based line in the log
  std::vector<double> columns;  // every numeric column of the row, as printed (OSU: size, value, ...)
};

struct ParsedLog {
  std::string format;  // "nccl-tests", "csv", "osu-latency", "osu-bandwidth"
  std::vector<Sample> samples;
  // busbw / algbw of nccl-tests (2(n-1)/n for allreduce); 0 when the log does not say.
  double bus_factor = 0;
};

ParsedLog parse_log_text(const std::string& text, const std::string& file);
ParsedLog parse_log_file(const std::string& file);

}  // namespace dasim::linkfit
