#include "scenario/scenario.hpp"

#include "common/errors.hpp"
#include "common/file_exists.hpp"
#include "common/json_reader.hpp"
#include "common/units.hpp"
#include "platform/platform_loader.hpp"
#include "platform/platform_variants.hpp"
#include "scenario/schedule_reader.hpp"
#include "workload/precision.hpp"
#include "workload/workload_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <map>

namespace dasim::scenario {
namespace {

namespace fs = std::filesystem;

// Paths inside a scenario are relative to the scenario file.
std::string resolve(const std::string& scenario_file, const std::string& path) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(scenario_file).parent_path() / p;
  return p.lexically_normal().string();
}

void require_file(const ObjectReader& reader, const std::string& key, const std::string& path) {
  if (!is_existing_file(path)) reader.fail(key, fmt::format("file \"{}\" does not exist", path));
}

workload::Workload read_workload(const nlohmann::json& value, const std::string& file,
                                 const std::string& path, workload::WorkloadOptions options) {
  if (value.is_string()) {
    std::string name = value.get<std::string>();
    bool is_file = name.ends_with(".json");
    if (is_file) {
      name = resolve(file, name);
      if (!is_existing_file(name))
        throw InputError(file, path, fmt::format("file \"{}\" does not exist", name));
    }
    try {
      return workload::load_workload(name, options);
    } catch (const InputError& e) {
      if (is_file) throw;
      throw InputError(file, path, e.what());
    }
  }
  ObjectReader w(value, file, path);
  std::string name;
  if (auto f = w.optional_string("file")) {
    name = resolve(file, *f);
    require_file(w, "file", name);
  } else {
    name = w.string("name");
  }
  if (auto seq = w.optional_integer_in("sequence_length", 1, 1 << 20))
    options.sequence_length = static_cast<int>(*seq);
  w.finish();
  return workload::load_workload(name, options);
}

PlatformEntry read_platform_entry(ObjectReader p, const std::optional<std::string>& calibration_override) {
  const std::string& file = p.file();
  const std::string path = p.path();
  PlatformEntry entry;
  std::string platform_file = resolve(file, p.string("file"));
  require_file(p, "file", platform_file);
  entry.spec = platform::load_platform(platform_file);
  p.array("nodes", [&](const nlohmann::json& n, const std::string& npath) {
    auto count = json_integer(n, file, npath);
    // Checked against int's range here: a wrapped count (2^32 -> 0) would slip past the limits.
    if (count <= 0 || count > std::numeric_limits<int>::max())
      throw InputError(file, npath, fmt::format("expected a positive node count below 2^31, got {}", count));
    if (std::find(entry.nodes.begin(), entry.nodes.end(), count) != entry.nodes.end())
      throw InputError(file, npath,
                       fmt::format("{} nodes is listed twice (each count is one row of results)", count));
    // The platform at this size (a torus shape holds one node count): the scenario's count is
    // the mistake, so the error names it.
    platform::PlatformSpec sized = entry.spec;
    sized.nodes = static_cast<int>(count);
    try {
      platform::validate_platform(sized);
    } catch (const InputError& e) {
      throw InputError(file, npath, fmt::format("{} nodes do not fit the platform: {}", count, e.what()));
    }
    entry.nodes.push_back(static_cast<int>(count));
  });
  if (entry.nodes.empty()) p.fail("nodes", "expected at least one node count");
  p.finish();
  entry.calibration_file = calibration_override.value_or(entry.spec.gpu.calibration);
  if (entry.calibration_file.empty())
    throw InputError(file, path + ".file",
                     fmt::format("platform {} names no node.gpu.calibration and the scenario gives no "
                                 "\"calibration\"",
                                 platform_file));
  if (!is_existing_file(entry.calibration_file))
    throw InputError(file, calibration_override ? "calibration" : path + ".file",
                     fmt::format("calibration file \"{}\" does not exist", entry.calibration_file));
  entry.calibration = calibration::load_calibration(entry.calibration_file);
  return entry;
}

// Defaults as NCCL on GPUs: algorithm and protocol auto. With MPI's host-progressed collectives
// (progress host, polled, polled_rounds) there is no NCCL: one ring on the links' own figures.
collectives::CollectiveOptions read_collective(ObjectReader c) {
  using collectives::Algorithm;
  using collectives::Protocol;
  collectives::CollectiveOptions options;
  options.progress =
      c.optional_enumeration("progress", collectives::kProgressNames).value_or(collectives::Progress::async);
  const bool nccl = options.progress == collectives::Progress::async;
  options.algorithm = c.optional_enumeration("algorithm", collectives::kAlgorithmNames)
                          .value_or(nccl ? Algorithm::automatic : Algorithm::ring);
  options.protocol = c.optional_enumeration("protocol", collectives::kProtocolNames)
                         .value_or(nccl ? Protocol::automatic : Protocol::links);
  options.granularity = c.optional_enumeration("granularity", collectives::kGranularityNames)
                            .value_or(collectives::Granularity::coarse);
  options.reduction_compute = c.optional_boolean("reduction_compute").value_or(false);
  if (auto channels = c.optional_positive_integer("ring_channels")) {
    if (*channels > 64) c.fail("ring_channels", fmt::format("expected 1..64 rings, got {}", *channels));
    options.ring_channels = static_cast<int>(*channels);
  }
  if (auto channels = c.optional_positive_integer("tree_channels")) {
    if (*channels > 64)
      c.fail("tree_channels", fmt::format("expected 1..64 double trees, got {}", *channels));
    options.tree_channels = static_cast<int>(*channels);
  }
  if (options.algorithm == Algorithm::nvls &&
      (options.protocol == Protocol::ll || options.protocol == Protocol::ll128))
    c.fail("protocol", "nvls runs the Simple protocol only: expected \"simple\" or \"auto\"");
  // polled-rounds replays one ring allreduce of MPI point-to-point rounds (collectives/polled_ring.hpp).
  if (options.progress == collectives::Progress::polled_rounds &&
      (options.algorithm != Algorithm::ring || options.ring_channels > 1))
    c.fail("progress",
           "polled_rounds runs a single ring: expected algorithm \"ring\" and ring_channels 1 or unset");
  c.finish();
  return options;
}

void read_run_length(ObjectReader& top, Scenario& sc) {
  if (auto it = top.optional_positive_integer("iterations")) {
    if (*it > std::numeric_limits<int>::max()) top.fail("iterations", "expected fewer than 2^31 iterations");
    sc.iterations = static_cast<int>(*it);
  }
  if (top.has("warmup")) {
    auto w = top.integer("warmup");
    if (w < 0 || w > std::numeric_limits<int>::max())
      top.fail("warmup", "expected a number of iterations >= 0 and below 2^31");
    sc.warmup = static_cast<int>(w);
  }
}

void read_jitter(ObjectReader j, Scenario& sc) {
  sc.jitter_stddev = j.number("stddev");
  if (sc.jitter_stddev < 0 || sc.jitter_stddev > 1) j.fail("stddev", "expected a relative stddev in [0, 1]");
  if (auto seed = j.optional_positive_integer("seed")) sc.seed = static_cast<uint64_t>(*seed);
  j.finish();
}

std::map<int, double> read_stragglers(ObjectReader& top) {
  std::map<int, double> slowdown_by_rank;
  top.array("stragglers", [&](const nlohmann::json& v, const std::string& path) {
    ObjectReader s(v, top.file(), path);
    auto rank = s.integer("rank");
    if (rank < 0) s.fail("rank", "expected a rank >= 0");
    double slowdown = s.number("slowdown");
    if (slowdown < 1) s.fail("slowdown", "expected a factor >= 1 (compute takes this many times longer)");
    slowdown_by_rank[static_cast<int>(rank)] = slowdown;
    s.finish();
  });
  return slowdown_by_rank;
}

Sweep read_sweep(ObjectReader s) {
  const std::string& file = s.file();
  Sweep sweep;
  sweep.parameter = s.choice("parameter", platform::sweep_parameters());
  const std::string unit = platform::sweep_parameter_unit(sweep.parameter);
  s.array("values", [&](const nlohmann::json& v, const std::string& path) {
    double value = 0;
    try {
      if (v.is_number())
        value = v.get<double>();
      else if (v.is_string() && unit == "bandwidth")
        value = units::parse_bandwidth_Bps(v.get<std::string>());
      else if (v.is_string() && unit == "time")
        value = units::parse_time_s(v.get<std::string>());
      else
        throw std::invalid_argument("expected a number or a unit string");
    } catch (const std::invalid_argument& e) {
      throw InputError(file, path, e.what());
    }
    if (!(value > 0) && unit != "time") throw InputError(file, path, "expected a value > 0");
    sweep.values.push_back(value);
  });
  if (sweep.values.empty()) s.fail("values", "expected at least one value");
  s.finish();
  return sweep;
}

}  // namespace

Scenario load_scenario(const std::string& file) {
  nlohmann::json root = load_json_file(file);
  ObjectReader top(root, file, "");
  Scenario sc;
  sc.file = file;
  sc.name = top.optional_string("name").value_or(fs::path(file).stem().string());
  sc.description = top.optional_string("description").value_or("");
  // 2^20 samples per GPU: far above any real per-GPU batch, and the sample counts derived from it
  // (x GPUs x iterations) stay exact.
  sc.batch_per_gpu = static_cast<int>(top.integer_in("batch_per_gpu", 1, 1 << 20));
  workload::WorkloadOptions workload_options;
  sc.precision = top.optional_string("precision").value_or("fp32");
  workload_options.precision = workload::parse_precision(sc.precision, file, "precision");
  if (auto grad = top.optional_choice("grad_precision", {"fp32", "fp16", "bf16"}))
    workload_options.grad_precision = workload::parse_precision(*grad, file, "grad_precision");
  if (auto optimizer = top.optional_string("optimizer"))
    workload_options.optimizer = workload::parse_optimizer(*optimizer, file, "optimizer");
  if (auto fusion = top.optional_string("fusion")) {
    workload_options.fusion = workload::parse_fusion(*fusion, file, "fusion");
    sc.fusion = *fusion;
  }
  std::optional<std::string> calibration_override;
  if (auto c = top.optional_string("calibration")) {
    calibration_override = resolve(file, *c);
    require_file(top, "calibration", *calibration_override);
  }
  top.array("platforms", [&](const nlohmann::json& v, const std::string& path) {
    sc.platforms.push_back(read_platform_entry(ObjectReader(v, file, path), calibration_override));
  });
  if (sc.platforms.empty()) top.fail("platforms", "expected at least one platform");
  top.array("workloads", [&](const nlohmann::json& v, const std::string& path) {
    sc.workloads.push_back(read_workload(v, file, path, workload_options));
  });
  if (sc.workloads.empty()) top.fail("workloads", "expected at least one workload");
  top.array("schedules", [&](const nlohmann::json& v, const std::string& path) {
    sc.schedules.push_back(read_schedule(ObjectReader(v, file, path)));
  });
  if (sc.schedules.empty()) top.fail("schedules", "expected at least one schedule");
  for (size_t s = 0; s < sc.schedules.size(); ++s) {
    for (const auto& w : sc.workloads)
      check_fragments_fit(sc.schedules[s], w, file, fmt::format("schedules[{}]", s));
    for (const auto& p : sc.platforms)
      check_islands_fit(sc.schedules[s], p.spec, p.nodes, file, fmt::format("schedules[{}]", s));
  }
  static const nlohmann::json kNoKeys = nlohmann::json::object();  // no section: its defaults
  sc.collective = top.has("collective") ? read_collective(top.object("collective"))
                                        : read_collective(ObjectReader(kNoKeys, file, "collective"));
  read_run_length(top, sc);
  if (top.has("jitter")) read_jitter(top.object("jitter"), sc);
  if (top.has("stragglers")) {
    sc.slowdown_by_rank = read_stragglers(top);
    // A straggler no configuration has would be silently ignored.
    int64_t most_gpus = 0;
    for (const auto& p : sc.platforms)
      for (int n : p.nodes) most_gpus = std::max(most_gpus, static_cast<int64_t>(n) * p.spec.gpus_per_node);
    for (const auto& [rank, slowdown] : sc.slowdown_by_rank)
      if (rank >= most_gpus)
        throw InputError(
            file, "stragglers",
            fmt::format("rank {} does not exist: the largest configuration has {} GPUs (ranks 0..{})", rank,
                        most_gpus, most_gpus - 1));
  }
  if (top.has("sweep")) {
    sc.sweep = read_sweep(top.object("sweep"));
    for (size_t i = 0; i < sc.platforms.size(); ++i) {  // a parameter a platform lacks: say which
      platform::PlatformSpec swept = sc.platforms[i].spec;
      try {
        platform::apply_sweep(swept, sc.sweep->parameter, sc.sweep->values.front());
      } catch (const InputError& e) {
        throw InputError(file, "sweep.parameter",
                         fmt::format("platforms[{}] ({}) cannot be swept: {}", i, swept.name, e.what()));
      }
    }
  }
  top.finish();
  // An algorithm the platform cannot run is the scenario's mistake: say so before simulating.
  if (sc.collective.algorithm == collectives::Algorithm::nvls)
    for (size_t i = 0; i < sc.platforms.size(); ++i) {
      const auto& spec = sc.platforms[i].spec;
      if (!spec.nvswitch || !spec.nvswitch->nvls_efficiency)
        throw InputError(
            file, "collective.algorithm",
            fmt::format("nvls needs an NVSwitch with NVLink SHARP (node.nvswitch.nvls), which platform "
                        "{} ({}) does not declare",
                        spec.name, spec.file));
      for (int nodes : sc.platforms[i].nodes)
        if (nodes > 1)
          throw InputError(
              file, fmt::format("platforms[{}].nodes", i),
              fmt::format("nvls runs on one node (NVLS across nodes needs IB SHARP, which dasim does "
                          "not model), got {} nodes",
                          nodes));
    }
  return sc;
}

std::vector<Configuration> expand(const Scenario& sc) {
  std::vector<Configuration> configs;
  std::vector<std::optional<double>> sweep_values{std::nullopt};
  if (sc.sweep) {
    sweep_values.clear();
    for (double v : sc.sweep->values) sweep_values.push_back(v);
  }
  for (size_t p = 0; p < sc.platforms.size(); ++p)
    for (size_t w = 0; w < sc.workloads.size(); ++w)
      for (const auto& value : sweep_values)
        for (size_t s = 0; s < sc.schedules.size(); ++s)
          for (int nodes : sc.platforms[p].nodes) configs.push_back({p, w, s, nodes, value});
  return configs;
}

}  // namespace dasim::scenario
