#include "workers/worker_record.hpp"

#include <algorithm>

namespace dasim::workers {

void WorkerRecord::add(std::vector<Interval>& list, double begin, double end, const std::string& name,
                       const char* category) {
  list.push_back({begin, end});
  if (trace && end > begin) events.push_back({name, category, begin, end, 0, {}});
}

void WorkerRecord::add_comm(double begin, double end, const std::string& name, double bytes,
                            const std::string& algorithm) {
  comm.push_back({begin, end});
  if (trace && end > begin) events.push_back({name, "comm", begin, end, bytes, algorithm});
}

double covered_length(std::vector<Interval> intervals, double from, double to) {
  for (auto& i : intervals) {
    i.begin = std::max(i.begin, from);
    i.end = std::min(i.end, to);
  }
  std::erase_if(intervals, [](const Interval& i) { return i.end <= i.begin; });
  std::sort(intervals.begin(), intervals.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  double total = 0, cursor = from;
  for (const auto& i : intervals) {
    double begin = std::max(i.begin, cursor);
    if (i.end > begin) {
      total += i.end - begin;
      cursor = i.end;
    }
  }
  return total;
}

double slowdown_in(const std::vector<SlowedCompute>& slowed, double from, double to) {
  double total = 0;
  for (const auto& s : slowed) {
    const double inside = std::min(s.end, to) - std::max(s.begin, from);
    if (inside > 0) total += s.extra_s * inside / (s.end - s.begin);
  }
  return total;
}

}  // namespace dasim::workers
