// Progress of a long run on stderr: on a terminal one line updated in place; in a log file a line
// per tenth of the work (no carriage returns in files). Silent when quiet. The work counts the
// simulations done and how far the running ones are (their reported fraction of steps), so one
// configuration of an hour still shows progress and the ETA is not "unknown" until it ends.
#pragma once

#include <chrono>
#include <string>

namespace dasim::scenario {

class ProgressReporter {
 public:
  ProgressReporter(std::string name, size_t total, bool quiet);
  void one_done();                 // a simulation finished
  void running(double in_flight);  // the running simulations' fractions done, summed

 private:
  void print(bool finished);
  double work() const { return static_cast<double>(done_) + in_flight_; }

  std::string name_;
  size_t total_;
  size_t done_ = 0;
  double in_flight_ = 0;
  int tenths_printed_ = 0;  // log files: the tenths of the work already reported
  bool quiet_;
  bool interactive_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
};

}  // namespace dasim::scenario
