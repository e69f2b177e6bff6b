#include "scenario/progress_reporter.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace dasim::scenario {

ProgressReporter::ProgressReporter(std::string name, size_t total, bool quiet)
    : name_(std::move(name)),
      total_(total),
      quiet_(quiet),
      interactive_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void ProgressReporter::one_done() {
  ++done_;
  if (quiet_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  if (interactive_) {
    fmt::print(stderr, "\r[dasim run] {}: {}/{} simulations done, {:.1f} s elapsed, ETA {:.0f} s   ", name_,
               done_, total_, elapsed, eta);
    if (done_ == total_) fmt::print(stderr, "\n");
  } else if (done_ == total_ || done_ * 10 / total_ != (done_ - 1) * 10 / total_) {
    fmt::print(stderr, "[dasim run] {}: {}/{} simulations done, {:.1f} s elapsed, ETA {:.0f} s\n", name_,
               done_, total_, elapsed, eta);
  }
}

}  // namespace dasim::scenario
