// JSON form of measurements and per-shape times, in the "dasim-calibration/1" layout.
#include "measurement.hpp"

namespace dasim::kernels {

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json out = {{"name", m.name},           {"kind", m.kind},         {"params", m.params},
                        {"precision", m.precision}, {"reps", m.stats.reps},   {"median_s", m.stats.median_s},
                        {"min_s", m.stats.min_s},   {"max_s", m.stats.max_s}, {"stddev_s", m.stats.stddev_s}};
  if (m.flops > 0) {
    out["flops"] = m.flops;
    out["flops_s"] = m.flops_s();
  }
  if (!m.kernel_class.empty()) out["kernel_class"] = m.kernel_class;
  if (m.bytes > 0) {
    out["bytes"] = m.bytes;
    out["bandwidth_Bps"] = m.bandwidth_Bps();
  }
  return out;
}

nlohmann::json to_json(const ShapeTime& s) {
  return {
      {"kind", s.kind}, {"key", s.key}, {"batch", s.batch}, {"precision", s.precision}, {"time_s", s.time_s}};
}

}  // namespace dasim::kernels
