// Progress of a long run on stderr: on a terminal one line updated in place; in a log file a line
// per tenth of the work (no carriage returns in files). Silent when quiet.
#pragma once

#include <chrono>
#include <string>

namespace dasim::scenario {

class ProgressReporter {
 public:
  ProgressReporter(std::string name, size_t total, bool quiet);
  void one_done();  // prints the count, the elapsed time and an ETA

 private:
  std::string name_;
  size_t total_;
  size_t done_ = 0;
  bool quiet_;
  bool interactive_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace dasim::scenario
