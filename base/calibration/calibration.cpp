// Strict loader, writer and efficiency interpolation of calibration files (see calibration.hpp).
#include "calibration/calibration.hpp"

#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dasim::calibration {
namespace {

EfficiencyCurve read_curve(ObjectReader& r, const std::string& key, double max_fraction = 1.0) {
  EfficiencyCurve curve;
  if (!r.has(key)) {
    r.optional_string(key);  // marks the key as read when it is null
    return curve;
  }
  const std::string& file = r.file();
  r.array(key, [&](const nlohmann::json& point, const std::string& path) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number())
      throw InputError(file, path,
                       "expected a pair [flops_per_call, fraction] of numbers, got " + point.dump());
    EfficiencyPoint p{point[0].get<double>(), point[1].get<double>()};
    if (!(std::isfinite(p.flops_per_call) && p.flops_per_call > 0))
      throw InputError(file, path + "[0]",
                       fmt::format("expected FLOPs per call > 0, got {}", p.flops_per_call));
    if (!(p.fraction > 0 && p.fraction <= max_fraction))
      throw InputError(
          file, path + "[1]",
          fmt::format("expected an efficiency fraction in (0, {}], got {}", max_fraction, p.fraction));
    if (!curve.empty() && p.flops_per_call <= curve.back().flops_per_call)
      throw InputError(file, path + "[0]",
                       fmt::format("points must be sorted by increasing FLOPs per call: {} follows {}",
                                   p.flops_per_call, curve.back().flops_per_call));
    curve.push_back(p);
  });
  return curve;
}

Fitted read_fitted(ObjectReader r) {
  Fitted f;
  ObjectReader flops = r.object("flops");
  for (const auto& precision : precision_names()) {
    if (precision == "fp32")
      f.flops[precision] = flops.flops(precision);
    else if (auto v = flops.optional_flops(precision))
      f.flops[precision] = *v;
  }
  flops.finish();
  f.gemm_efficiency = read_curve(r, "gemm_efficiency");
  f.conv_efficiency = read_curve(r, "conv_efficiency", kMaxConvFraction);
  if (r.has("efficiency_curves")) {
    ObjectReader by_precision = r.object("efficiency_curves");
    for (const auto& precision : precision_names()) {
      if (!by_precision.has(precision)) continue;
      ObjectReader classes = by_precision.object(precision);
      for (const auto& kernel_class : kernel_classes()) {
        double max_fraction = kernel_class == "gemm" ? 1.0 : kMaxConvFraction;
        EfficiencyCurve curve = read_curve(classes, kernel_class, max_fraction);
        if (!curve.empty()) f.efficiency_curves[precision][kernel_class] = std::move(curve);
      }
      classes.finish();
    }
    by_precision.finish();
  }
  f.memory_bandwidth_Bps = r.bandwidth_Bps("memory_bandwidth_Bps");
  f.launch_overhead_s = r.time_s("launch_overhead_s");
  f.host_overhead_per_kernel_s = r.optional_time_s("host_overhead_per_kernel_s").value_or(0);
  if (auto slowdown = r.optional_number("compute_slowdown_under_collective")) {
    if (!(*slowdown >= 0 && *slowdown < 1))
      r.fail("compute_slowdown_under_collective",
             fmt::format("expected a fraction in [0, 1) (0: no interference), got {}", *slowdown));
    f.compute_slowdown_under_collective = *slowdown;
  }
  f.input_per_sample_s = r.optional_time_s("input_per_sample_s").value_or(0);
  r.finish();
  return f;
}

PerShape read_per_shape(ObjectReader r) {
  PerShape p;
  p.kind = r.choice("kind", per_shape_kinds());
  p.key = r.string("key");
  if (p.key.empty()) r.fail("key", "expected a non-empty shape key");
  int64_t batch = r.positive_integer("batch");
  if (batch > 1'000'000'000) r.fail("batch", "expected a batch below 1e9");
  p.batch = int(batch);
  p.precision = r.choice("precision", precision_names());
  p.time_s = r.time_s("time_s");
  if (p.time_s <= 0) r.fail("time_s", "expected a time > 0");
  r.finish();
  return p;
}

Device read_device(ObjectReader r) {
  Device d;
  d.name = r.string("name");
  d.kind = r.choice("kind", {"cuda", "cpu"});
  d.driver = r.optional_string("driver").value_or("");
  d.toolkit = r.optional_string("toolkit").value_or("");
  d.cpu_model = r.optional_string("cpu_model").value_or("");
  r.finish();
  return d;
}

}  // namespace

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names{"fp32", "tf32", "fp16", "bf16"};
  return names;
}

const std::vector<std::string>& kernel_classes() {
  static const std::vector<std::string> classes = [] {
    std::vector<std::string> out{"gemm"};
    for (const char* conv : {"conv_1x1", "conv_3x3_s1", "conv_other"})
      for (const char* pass : {"forward", "backward_data", "backward_filter"})
        out.push_back(fmt::format("{}.{}", conv, pass));
    return out;
  }();
  return classes;
}

const std::vector<std::string>& per_shape_kinds() {
  static const std::vector<std::string> kinds{"conv_fwd", "conv_bwd_data", "conv_bwd_filter", "gemm"};
  return kinds;
}

Calibration parse_calibration(const nlohmann::json& value, const std::string& file) {
  ObjectReader r(value, file, "");
  Calibration c;
  std::string format = r.string("format");
  if (format != kFormat) r.fail("format", fmt::format("expected \"{}\", got \"{}\"", kFormat, format));
  c.device = read_device(r.object("device"));
  c.date = r.string("date");
  c.command = r.optional_string("command").value_or("");
  c.measured = r.boolean("measured");
  c.efficiency_assumption = r.optional_number("efficiency_assumption");
  if (c.efficiency_assumption) {
    if (c.measured)
      r.fail("efficiency_assumption", "only datasheet files (\"measured\": false) assume an efficiency");
    if (!(*c.efficiency_assumption > 0 && *c.efficiency_assumption <= 1))
      r.fail("efficiency_assumption",
             fmt::format("expected a fraction in (0, 1], got {}", *c.efficiency_assumption));
  } else if (!c.measured) {
    r.fail("efficiency_assumption",
           "required key is missing (a datasheet file must say what fraction of peak it assumes)");
  }
  c.fitted = read_fitted(r.object("fitted"));
  if (r.has("per_shape"))
    r.array("per_shape", [&](const nlohmann::json& e, const std::string& path) {
      c.per_shape.push_back(read_per_shape(ObjectReader(e, file, path)));
    });
  if (r.has("measurements"))
    r.array("measurements", [&](const nlohmann::json& e, const std::string& path) {
      if (!e.is_object()) throw InputError(file, path, "expected a JSON object, got " + json_type_name(e));
      c.measurements.push_back(e);
    });
  if (r.has("sources")) {
    const auto& sources = r.raw("sources");
    if (!sources.is_object()) r.fail("sources", "expected an object of \"what\": \"where from\" strings");
    for (const auto& [key, text] : sources.items()) {
      if (!text.is_string()) throw InputError(file, "sources." + key, "expected a string naming the source");
      c.sources[key] = text.get<std::string>();
    }
  }
  r.finish();
  return c;
}

Calibration load_calibration(const std::string& file) {
  return parse_calibration(load_json_file(file), file);
}

nlohmann::ordered_json to_json(const Calibration& c) {
  using oj = nlohmann::ordered_json;
  oj device{{"name", c.device.name}, {"kind", c.device.kind}};
  if (!c.device.driver.empty()) device["driver"] = c.device.driver;
  if (!c.device.toolkit.empty()) device["toolkit"] = c.device.toolkit;
  if (!c.device.cpu_model.empty()) device["cpu_model"] = c.device.cpu_model;

  oj flops = oj::object();
  for (const auto& precision : precision_names()) {
    auto it = c.fitted.flops.find(precision);
    if (it != c.fitted.flops.end()) flops[precision] = it->second;
  }
  oj fitted{{"flops", flops}};
  auto curve = [](const EfficiencyCurve& points) {
    oj out = oj::array();
    for (const auto& p : points) out.push_back(oj::array({p.flops_per_call, p.fraction}));
    return out;
  };
  if (!c.fitted.gemm_efficiency.empty()) fitted["gemm_efficiency"] = curve(c.fitted.gemm_efficiency);
  if (!c.fitted.conv_efficiency.empty()) fitted["conv_efficiency"] = curve(c.fitted.conv_efficiency);
  if (!c.fitted.efficiency_curves.empty()) {
    oj by_precision = oj::object();
    for (const auto& [precision, classes] : c.fitted.efficiency_curves) {
      oj out_classes = oj::object();
      for (const auto& kernel_class : kernel_classes())
        if (auto it = classes.find(kernel_class); it != classes.end())
          out_classes[kernel_class] = curve(it->second);
      by_precision[precision] = out_classes;
    }
    fitted["efficiency_curves"] = by_precision;
  }
  fitted["memory_bandwidth_Bps"] = c.fitted.memory_bandwidth_Bps;
  fitted["launch_overhead_s"] = c.fitted.launch_overhead_s;
  if (c.fitted.host_overhead_per_kernel_s > 0)
    fitted["host_overhead_per_kernel_s"] = c.fitted.host_overhead_per_kernel_s;
  if (c.fitted.compute_slowdown_under_collective > 0)
    fitted["compute_slowdown_under_collective"] = c.fitted.compute_slowdown_under_collective;
  if (c.fitted.input_per_sample_s > 0) fitted["input_per_sample_s"] = c.fitted.input_per_sample_s;

  oj out{{"format", kFormat}, {"device", device}, {"date", c.date}};
  if (!c.command.empty()) out["command"] = c.command;
  out["measured"] = c.measured;
  if (c.efficiency_assumption) out["efficiency_assumption"] = *c.efficiency_assumption;
  out["fitted"] = fitted;
  if (!c.per_shape.empty()) {
    oj shapes = oj::array();
    for (const auto& p : c.per_shape)
      shapes.push_back({{"kind", p.kind},
                        {"key", p.key},
                        {"batch", p.batch},
                        {"precision", p.precision},
                        {"time_s", p.time_s}});
    out["per_shape"] = shapes;
  }
  if (!c.measurements.empty()) out["measurements"] = oj::parse(c.measurements.dump());
  if (!c.sources.empty()) {
    oj sources = oj::object();
    for (const auto& [k, v] : c.sources) sources[k] = v;
    out["sources"] = sources;
  }
  return out;
}

void save_calibration(const Calibration& calibration, const std::string& path) {
  write_file_atomically(path, to_json(calibration).dump(2) + "\n");
}

double efficiency_at(const EfficiencyCurve& curve, double flops_per_call) {
  if (curve.empty()) return 1.0;
  if (flops_per_call <= curve.front().flops_per_call) return curve.front().fraction;
  if (flops_per_call >= curve.back().flops_per_call) return curve.back().fraction;
  for (size_t i = 1; i < curve.size(); ++i) {
    const auto& hi = curve[i];
    if (flops_per_call > hi.flops_per_call) continue;
    const auto& lo = curve[i - 1];
    double t = std::log(flops_per_call / lo.flops_per_call) / std::log(hi.flops_per_call / lo.flops_per_call);
    return lo.fraction + t * (hi.fraction - lo.fraction);
  }
  return curve.back().fraction;
}

}  // namespace dasim::calibration
