#include "schedules/schedule_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dasim::schedules {

double top_k_entries(double density, double n) {
  const double product = density * n;
  const double nearest = std::round(product);
  const double k =
      std::abs(product - nearest) <= 1e-9 * std::max(1.0, nearest) ? nearest : std::ceil(product);
  return std::clamp(k, 1.0, std::max(1.0, n));
}

std::string to_string(ScheduleKind kind) {
  return std::string(kScheduleKindNames.name(kind));
}

namespace {

std::string describe_outer(const OuterStep& o) {
  if (o.optimizer == OuterOptimizer::sgd) return fmt::format("sgd lr={:g}", o.lr);
  return fmt::format("nesterov lr={:g} mu={:g}", o.lr, o.momentum);
}

// Compression, islands and accumulation, the parameters every periodic schedule may have (with
// islands, their buckets' copies too).
std::string bits_suffix(const ScheduleSpec& spec) {
  std::string out = spec.payload_bits == 32 ? "" : fmt::format(",bits={}", spec.payload_bits);
  if (has_top_k(spec))
    out += spec.top_k.index_bits == 32
               ? fmt::format(",top_k={:g}", spec.top_k.density)
               : fmt::format(",top_k={:g}/{}", spec.top_k.density, spec.top_k.index_bits);
  if (has_islands(spec))
    out += fmt::format(",island={}{}{}", spec.island_gpus, spec.bucket_view ? ",bucket_view" : "",
                       has_sharded_steps(spec) ? ",fsdp" : "");
  if (spec.accumulation_steps > 1) out += fmt::format(",accumulate={}", spec.accumulation_steps);
  return out;
}

}  // namespace

std::string describe(const ScheduleSpec& spec) {
  switch (spec.kind) {
    case ScheduleKind::sgd: {
      std::vector<std::string> options;
      if (!spec.overlap) options.push_back("no overlap");
      if (spec.bucket_view) options.push_back("bucket_view");
      if (has_sharded_steps(spec)) options.push_back("fsdp");
      if (spec.accumulation_steps > 1)
        options.push_back(fmt::format("accumulate={}", spec.accumulation_steps));
      return options.empty() ? "sgd" : fmt::format("sgd({})", fmt::join(options, ","));
    }
    case ScheduleKind::local_sgd:
      return fmt::format("local_sgd(tau={}{})", spec.tau, bits_suffix(spec));
    case ScheduleKind::dasgd:
      return fmt::format("dasgd(tau={},d={}{})", spec.tau, spec.delay, bits_suffix(spec));
    case ScheduleKind::diloco:
      return fmt::format("diloco(H={},{}{}{})", spec.tau, describe_outer(spec.outer),
                         spec.eager ? ",eager" : "", bits_suffix(spec));
    case ScheduleKind::streaming_diloco:
      return fmt::format("streaming_diloco(H={},P={},d={},alpha={:g},{}{})", spec.tau, spec.fragments,
                         spec.delay, spec.alpha, describe_outer(spec.outer), bits_suffix(spec));
  }
  return "?";
}

}  // namespace dasim::schedules
