// What one worker records while it trains: when each iteration ended, its compute intervals, the
// intervals its collectives were in flight, the intervals it waited (exposed communication) and
// those it waited for its input (a loader slower than the step).
// Times are simulated seconds. Aggregation clips them to the measured window (warm-up excluded).
#pragma once

#include <string>
#include <vector>

namespace dasim::workers {

struct Interval {
  double begin = 0;
  double end = 0;
};

struct TraceEvent {
  std::string name;      // "forward", "backward", "update", "allreduce bucket 2", "wait", ...
  std::string category;  // compute | comm | wait | input
  double begin = 0;
  double end = 0;
  // Collectives only: the bytes and what ran ("ring/simple", as auto resolved it).
  double bytes = 0;
  std::string algorithm;
};

// Compute that ran while a collective of the rank was in flight (interference): its interval and
// the time it took beyond its own duration.
struct SlowedCompute {
  double begin = 0;
  double end = 0;
  double extra_s = 0;
};

struct WorkerRecord {
  std::vector<double> iteration_end_s;  // one per iteration, warm-up included
  std::vector<Interval> compute;        // slowed compute included
  std::vector<SlowedCompute> slowed;
  std::vector<Interval> comm;  // collective in flight (start -> this rank's completion)
  std::vector<Interval> wait;
  std::vector<Interval> input;
  bool trace = false;
  std::vector<TraceEvent> events;

  void add(std::vector<Interval>& list, double begin, double end, const std::string& name,
           const char* category);
  // A collective in flight, with what the trace shows of it.
  void add_comm(double begin, double end, const std::string& name, double bytes,
                const std::string& algorithm);
};

// Total length of `intervals` inside [from, to], overlaps counted once.
double covered_length(std::vector<Interval> intervals, double from, double to);
// The extra time of `slowed` inside [from, to]; an interval the window cuts counts its share.
double slowdown_in(const std::vector<SlowedCompute>& slowed, double from, double to);

}  // namespace dasim::workers
