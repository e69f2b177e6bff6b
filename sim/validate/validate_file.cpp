#include "validate/validate_file.hpp"

#include "calibration/calibration.hpp"
#include "calibration/gpu_spread.hpp"
#include "common/errors.hpp"
#include "common/json_reader.hpp"
#include "common/units.hpp"
#include "platform/platform_loader.hpp"
#include "scenario/limits.hpp"
#include "scenario/scenario.hpp"
#include "scenario/simulation_jobs.hpp"
#include "workload/workload_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dasim::validate {

std::string validate_file(const std::string& file) {
  nlohmann::json root = load_json_file(file);
  if (!root.is_object()) throw InputError(file, "(top level)", "expected a JSON object");
  if (root.contains("schedules") || root.contains("platforms")) {
    // Every check `dasim run` makes before simulating: the limits, and each configuration's
    // platform variant (node count, sweep value, the 1-GPU baseline) built as it would be.
    auto sc = scenario::load_scenario(file);
    const auto configs = scenario::expand(sc);
    scenario::check_limits(sc, configs);
    scenario::plan_jobs(sc, configs, std::nullopt, 0);
    return fmt::format("scenario {}: {}", sc.name,
                       units::format_count(static_cast<long long>(configs.size()), "configuration"));
  }
  if (root.contains("fabric") || root.contains("node") || root.contains("sites")) {
    auto spec = platform::load_platform(file);
    std::string sites = spec.sites.count > 1
                            ? fmt::format(" in {} sites (each a {} fabric)", spec.sites.count,
                                          platform::to_string(spec.fabric.topology))
                            : fmt::format(", {} fabric", platform::to_string(spec.fabric.topology));
    if (spec.mixed_sites()) {
      std::vector<std::string> kinds;
      for (const auto& site : spec.site_platforms)
        kinds.push_back(fmt::format("{} ({}, {} fabric)", site.name, site.gpu.model,
                                    platform::to_string(site.fabric.topology)));
      sites = fmt::format(" in {} sites: {}", spec.sites.count, fmt::join(kinds, ", "));
    }
    return fmt::format("platform {}: {} x {}{}", spec.name, units::format_count(spec.nodes, "node"),
                       units::format_count(spec.gpus_per_node, "GPU"), sites);
  }
  if (root.contains("format") && root["format"] == calibration::kGpuSpreadFormat) {
    auto s = calibration::gpu_spread_from_json(root, file);
    return fmt::format("GPU spread of {}: {} GPUs measured, the slowest {:.3f} x the median GPU", s.gpu,
                       s.gpus_measured, s.relative_time.back());
  }
  if (root.contains("format") || root.contains("fitted")) {
    auto c = calibration::parse_calibration(root, file);
    return fmt::format("calibration of {} ({})", c.device.name, c.measured ? "measured" : "datasheet");
  }
  if (root.contains("layers")) {
    auto w = workload::parse_workload(root, file);
    return fmt::format("workload {}: {} layers, {} parameters", w.name, w.layers.size(), w.total_params());
  }
  throw InputError(file, "(top level)",
                   "cannot tell what kind of dasim file this is (a scenario has \"schedules\", a platform "
                   "\"node\" and \"fabric\" or \"sites\", a calibration \"format\", a workload \"layers\", a "
                   "GPU spread \"format\": \"dasim-gpu-spread-1\")");
}

}  // namespace dasim::validate
