#include "scenario/progress_reporter.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace dasim::scenario {

ProgressReporter::ProgressReporter(std::string name, size_t total, bool quiet)
    : name_(std::move(name)),
      total_(total),
      quiet_(quiet),
      interactive_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void ProgressReporter::one_done() {
  ++done_;
  in_flight_ = 0;  // the next running() says what the others are at
  print(done_ == total_);
}

void ProgressReporter::running(double in_flight) {
  in_flight_ = in_flight;
  print(false);
}

void ProgressReporter::print(bool finished) {
  if (quiet_ || total_ == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double so_far = std::min(work(), static_cast<double>(total_));
  const std::string eta =
      so_far > 0 ? fmt::format("ETA {:.0f} s", elapsed / so_far * (static_cast<double>(total_) - so_far))
                 : "ETA unknown";
  // "+0.4 running": how far through the simulations still running are.
  const std::string partial =
      in_flight_ > 0.005 && !finished ? fmt::format(" (+{:.2f} running)", in_flight_) : "";
  const std::string line = fmt::format("[dasim run] {}: {}/{} simulations done{}, {:.1f} s elapsed, {}",
                                       name_, done_, total_, partial, elapsed, eta);
  if (interactive_) {
    // In place, at most once a second while nothing finishes.
    if (!finished && in_flight_ > 0 && now - last_print_ < std::chrono::seconds(1)) return;
    last_print_ = now;
    fmt::print(stderr, "\r{}   ", line);
    if (finished) fmt::print(stderr, "\n");
    return;
  }
  const int tenths = static_cast<int>(std::floor(so_far * 10 / static_cast<double>(total_)));
  if (finished || tenths > tenths_printed_) {
    tenths_printed_ = tenths;
    fmt::print(stderr, "{}\n", line);
  }
}

}  // namespace dasim::scenario
