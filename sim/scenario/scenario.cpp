#include "scenario/scenario.hpp"

#include "common/errors.hpp"
#include "common/file_exists.hpp"
#include "common/json_reader.hpp"
#include "common/sha256.hpp"
#include "common/units.hpp"
#include "convergence/convergence_file.hpp"
#include "platform/platform_loader.hpp"
#include "platform/platform_variants.hpp"
#include "scenario/global_batch.hpp"
#include "scenario/schedule_reader.hpp"
#include "scenario/sweep.hpp"
#include "workload/precision.hpp"
#include "workload/workload_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
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
    } catch (const workload::CheckpointingError& e) {
      throw InputError(file, path, e.what());  // the combination is the scenario's, not the file's
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
  if (w.has("length_bins")) {
    ObjectReader bins = w.object("length_bins");
    workload::LengthBins spec;
    spec.file = resolve(file, bins.string("file"));
    require_file(bins, "file", spec.file);
    spec.bin_size = static_cast<int>(bins.integer_in("bin_size", 1, 1 << 16));
    bins.finish();
    options.length_bins = spec;
  }
  w.finish();
  try {
    return workload::load_workload(name, options);
  } catch (const workload::LengthBinsError& e) {
    w.fail(e.key().empty() ? "length_bins" : "length_bins." + e.key(), e.what());
  } catch (const workload::SequenceLengthError& e) {
    w.fail("sequence_length", e.what());
  } catch (const workload::CheckpointingError& e) {
    w.fail("", e.what());
  }
}

// Sites of different GPU types: each site's own calibration, named by its platform file (one
// calibration per GPU type; a scenario's single "calibration" cannot stand for several).
void read_site_calibrations(PlatformEntry& entry, const std::optional<std::string>& calibration_override,
                            ObjectReader& p) {
  if (calibration_override)
    throw InputError(p.file(), "calibration",
                     fmt::format("platform {} has sites of different GPU types, each calibrated by its own "
                                 "platform file: leave \"calibration\" out",
                                 entry.spec.name));
  std::vector<std::string> files, hashes;
  for (const auto& site : entry.spec.site_platforms) {
    if (site.gpu.calibration.empty())
      throw InputError(p.file(), p.path_of("file"),
                       fmt::format("site platform {} names no node.gpu.calibration", site.file));
    entry.site_calibrations.push_back(calibration::load_calibration(site.gpu.calibration));
    files.push_back(site.gpu.calibration);
    hashes.push_back(sha256_of_file(site.gpu.calibration));
  }
  entry.calibration = entry.site_calibrations.front();
  entry.calibration_file = fmt::format("{}", fmt::join(files, "+"));
  entry.calibration_sha256 = fmt::format("{}", fmt::join(hashes, "+"));
}

// At least one sample per 1000 s: a rate near 0 makes a step's loader time overflow to an
// infinite wait (samples / 1e-320), which SimGrid refuses mid-run.
bool valid_host_input(double samples_per_s) {
  return samples_per_s >= 1e-3 && std::isfinite(samples_per_s);
}
constexpr const char* kHostInputExpected =
    "expected the samples per second one node's host prepares for all its GPUs, at least 0.001";

// A host_input section (the scenario's, or a platform entry's): its samples_per_s.
double read_host_input(ObjectReader h) {
  const double samples_per_s = h.number("samples_per_s");
  if (!valid_host_input(samples_per_s)) h.fail("samples_per_s", kHostInputExpected);
  h.finish();
  return samples_per_s;
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
  if (p.has("host_input")) entry.host_input_samples_per_s = read_host_input(p.object("host_input"));
  p.finish();
  if (entry.spec.mixed_sites()) {
    read_site_calibrations(entry, calibration_override, p);
    return entry;
  }
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
  entry.calibration_sha256 = sha256_of_file(entry.calibration_file);
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
  options.fold = c.optional_boolean("fold").value_or(true);
  options.fold_trees_across_leaves = c.optional_boolean("fold_trees_across_leaves").value_or(false);
  if (options.fold_trees_across_leaves && !options.fold)
    c.fail("fold_trees_across_leaves", "expected false or absent when fold is false (nothing is folded)");
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

void read_gpu_spread(ObjectReader g, Scenario& sc) {
  const std::string file = resolve(g.file(), g.string("file"));
  require_file(g, "file", file);
  sc.gpu_spread = calibration::load_gpu_spread_file(file);
  if (auto seed = g.optional_positive_integer("seed")) sc.gpu_spread_seed = static_cast<uint64_t>(*seed);
  g.finish();
}

Sweep read_sweep(ObjectReader s) {
  const std::string& file = s.file();
  Sweep sweep;
  sweep.parameter = s.choice("parameter", sweep_parameters());
  const std::string unit = sweep_parameter_unit(sweep.parameter);
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
        throw std::invalid_argument(unit == "bandwidth" || unit == "time"
                                        ? "expected a number or a unit string"
                                        : "expected a number");
    } catch (const std::invalid_argument& e) {
      throw InputError(file, path, e.what());
    }
    if (unit == "rate" && !valid_host_input(value)) throw InputError(file, path, kHostInputExpected);
    // A negative latency would pass here and fail in SimGrid's zone mid-run.
    if (unit == "time" && !(value >= 0)) throw InputError(file, path, "expected a latency >= 0");
    if (!(value > 0) && unit != "time") throw InputError(file, path, "expected a value > 0");
    sweep.values.push_back(value);
  });
  if (sweep.values.empty()) s.fail("values", "expected at least one value");
  s.finish();
  return sweep;
}

// `key`: one value or a list of them (each a configuration of its own), none listed twice.
template <typename Value>
std::vector<Value> one_or_list(ObjectReader& top, const std::string& key,
                               const std::function<Value(const nlohmann::json&, const std::string&)>& read) {
  std::vector<Value> values;
  auto add = [&](const nlohmann::json& v, const std::string& path) {
    Value value = read(v, path);
    if (std::find(values.begin(), values.end(), value) != values.end())
      throw InputError(top.file(), path,
                       fmt::format("{} is listed twice (each value is one configuration)", v.dump()));
    values.push_back(std::move(value));
  };
  if (top.raw(key).is_array()) {
    top.array(key, add);
    if (values.empty()) top.fail(key, "expected a value or a non-empty list of values");
  } else {
    add(top.raw(key), top.path_of(key));
  }
  return values;
}

// 2^20 samples per GPU: far above any real per-GPU batch, and the sample counts derived from it
// (x GPUs x iterations) stay exact.
std::vector<int> read_batches(ObjectReader& top) {
  return one_or_list<int>(top, "batch_per_gpu", [&](const nlohmann::json& v, const std::string& path) {
    const int64_t batch = json_integer(v, top.file(), path);
    if (batch < 1 || batch > (1 << 20))
      throw InputError(top.file(), path, fmt::format("expected an integer in 1..{}, got {}", 1 << 20, batch));
    return static_cast<int>(batch);
  });
}

std::vector<std::string> read_precisions(ObjectReader& top) {
  if (!top.has("precision")) return {"fp32"};
  return one_or_list<std::string>(top, "precision", [&](const nlohmann::json& v, const std::string& path) {
    if (!v.is_string()) throw InputError(top.file(), path, "expected a precision name (a string)");
    const std::string name = v.get<std::string>();
    workload::parse_precision(name, top.file(), path);  // throws with the allowed names
    return name;
  });
}

// efficiency_baseline: a GPU count (1, or whole nodes of every platform) or "node" (one node of
// each platform); published scaling tables use all three.
void read_efficiency_baseline(ObjectReader& top, Scenario& sc) {
  if (!top.has("efficiency_baseline")) return;
  const auto& raw = top.raw("efficiency_baseline");
  if (raw.is_string()) {
    if (raw.get<std::string>() != "node")
      top.fail("efficiency_baseline", fmt::format("expected a GPU count or \"node\", got {}", raw.dump()));
    sc.baseline_one_node = true;
  } else {
    sc.baseline_gpus = static_cast<int>(top.integer_in("efficiency_baseline", 1, 1 << 30));
  }
  for (size_t p = 0; p < sc.platforms.size(); ++p) {
    const auto& spec = sc.platforms[p].spec;
    const int gpus = baseline_gpus(sc, p);
    if (gpus > 1 && gpus % spec.gpus_per_node != 0)
      top.fail("efficiency_baseline",
               fmt::format("expected 1 GPU or whole nodes: platform {} has {} GPUs per node, got {} GPUs",
                           spec.name, spec.gpus_per_node, gpus));
    platform::PlatformSpec sized = spec;
    sized.nodes = std::max(1, gpus / spec.gpus_per_node);
    try {
      platform::validate_platform(sized);
    } catch (const InputError& e) {
      top.fail("efficiency_baseline", fmt::format("the baseline's {} do not fit platform {}: {}",
                                                  units::format_count(gpus, "GPU"), spec.name, e.what()));
    }
  }
}

}  // namespace

int baseline_gpus(const Scenario& sc, size_t platform) {
  return sc.baseline_one_node ? sc.platforms[platform].spec.gpus_per_node : sc.baseline_gpus;
}

const workload::Workload& workload_of(const Scenario& sc, const Configuration& c) {
  return sc.workloads_by_precision[c.precision][c.workload];
}

// A sweep must have something to set: a host_input sweep must not silently replace a host_input
// section, and a platform parameter must exist on every platform (say which lacks it).
void check_sweep_applies(const Scenario& sc, bool has_host_input, const std::string& file) {
  const std::string& parameter = sc.sweep->parameter;
  if (!sweeps_platform(parameter)) {
    if (has_host_input)
      throw InputError(file, "sweep.parameter",
                       "host_input is swept: remove the scenario's host_input section, which the sweep would "
                       "replace");
    for (size_t i = 0; i < sc.platforms.size(); ++i)
      if (sc.platforms[i].host_input_samples_per_s > 0)
        throw InputError(file, "sweep.parameter",
                         fmt::format("host_input is swept: remove platforms[{}].host_input, which the sweep "
                                     "would replace",
                                     i));
    return;
  }
  for (size_t i = 0; i < sc.platforms.size(); ++i) {
    platform::PlatformSpec swept = sc.platforms[i].spec;
    try {
      platform::apply_sweep(swept, parameter, sc.sweep->values.front());
    } catch (const InputError& e) {
      throw InputError(file, "sweep.parameter",
                       fmt::format("platforms[{}] ({}) cannot be swept: {}", i, swept.name, e.what()));
    }
  }
}

Scenario load_scenario(const std::string& file) {
  nlohmann::json root = load_json_file(file);
  ObjectReader top(root, file, "");
  Scenario sc;
  sc.file = file;
  sc.name = top.optional_string("name").value_or(fs::path(file).stem().string());
  sc.description = top.optional_string("description").value_or("");
  if (!top.has("batch_per_gpu")) top.fail("batch_per_gpu", "required key is missing");
  sc.batches = read_batches(top);
  workload::WorkloadOptions workload_options;
  sc.precisions = read_precisions(top);
  if (auto grad = top.optional_choice("grad_precision", {"fp32", "fp16", "bf16"}))
    workload_options.grad_precision = workload::parse_precision(*grad, file, "grad_precision");
  if (auto optimizer = top.optional_string("optimizer"))
    workload_options.optimizer = workload::parse_optimizer(*optimizer, file, "optimizer");
  if (auto clip = top.optional_string("grad_clip"))
    workload_options.grad_clip = workload::parse_grad_clip(*clip, file, "grad_clip");
  if (auto zero = top.optional_string("zero_grad"))
    workload_options.zero_grad = workload::parse_zero_grad(*zero, file, "zero_grad");
  if (auto checkpointing = top.optional_string("activation_checkpointing"))
    workload_options.activation_checkpointing =
        workload::parse_activation_checkpointing(*checkpointing, file, "activation_checkpointing");
  if (auto fusion = top.optional_string("fusion")) {
    workload_options.fusion = workload::parse_fusion(*fusion, file, "fusion");
    sc.fusion = *fusion;
  }
  if (auto format = top.optional_string("memory_format"))
    workload_options.memory_format = workload::parse_memory_format(*format, file, "memory_format");
  std::optional<std::string> calibration_override;
  if (auto c = top.optional_string("calibration")) {
    calibration_override = resolve(file, *c);
    require_file(top, "calibration", *calibration_override);
  }
  top.array("platforms", [&](const nlohmann::json& v, const std::string& path) {
    sc.platforms.push_back(read_platform_entry(ObjectReader(v, file, path), calibration_override));
  });
  if (sc.platforms.empty()) top.fail("platforms", "expected at least one platform");
  for (const auto& precision : sc.precisions) {
    workload_options.precision = workload::parse_precision(precision, file, "precision");
    auto& workloads = sc.workloads_by_precision.emplace_back();
    top.array("workloads", [&](const nlohmann::json& v, const std::string& path) {
      workloads.push_back(read_workload(v, file, path, workload_options));
    });
  }
  sc.workloads = sc.workloads_by_precision.front();
  if (sc.workloads.empty()) top.fail("workloads", "expected at least one workload");
  read_efficiency_baseline(top, sc);
  top.array("schedules", [&](const nlohmann::json& v, const std::string& path) {
    sc.schedules.push_back(read_schedule(ObjectReader(v, file, path)));
  });
  if (sc.schedules.empty()) top.fail("schedules", "expected at least one schedule");
  for (size_t s = 0; s < sc.schedules.size(); ++s) {
    for (const auto& w : sc.workloads)
      check_fragments_fit(sc.schedules[s], w, file, fmt::format("schedules[{}]", s));
    for (size_t p = 0; p < sc.platforms.size(); ++p) {
      auto node_counts = sc.platforms[p].nodes;  // the baseline's too: it runs the same schedule
      node_counts.push_back(std::max(1, baseline_gpus(sc, p) / sc.platforms[p].spec.gpus_per_node));
      check_islands_fit(sc.schedules[s], sc.platforms[p].spec, node_counts, file,
                        fmt::format("schedules[{}]", s));
    }
  }
  read_global_batch(top, sc);
  static const nlohmann::json kNoKeys = nlohmann::json::object();  // no section: its defaults
  sc.collective = top.has("collective") ? read_collective(top.object("collective"))
                                        : read_collective(ObjectReader(kNoKeys, file, "collective"));
  for (size_t s = 0; s < sc.schedules.size(); ++s)
    check_collectives_replayable(sc.schedules[s], sc.collective, file, fmt::format("schedules[{}]", s));
  read_run_length(top, sc);
  if (auto convergence = top.optional_string("convergence")) {
    sc.convergence_file = resolve(file, *convergence);
    require_file(top, "convergence", sc.convergence_file);
    sc.convergence = convergence::load_convergence_file(sc.convergence_file);
  }
  if (top.has("jitter")) read_jitter(top.object("jitter"), sc);
  if (top.has("host_input")) sc.host_input_samples_per_s = read_host_input(top.object("host_input"));
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
  if (top.has("gpu_spread")) read_gpu_spread(top.object("gpu_spread"), sc);
  if (top.has("sweep")) {
    sc.sweep = read_sweep(top.object("sweep"));
    check_sweep_applies(sc, top.has("host_input"), file);
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
      for (size_t k = 0; k < sc.precisions.size(); ++k)
        for (int batch : sc.batches)
          for (const auto& value : sweep_values)
            for (size_t s = 0; s < sc.schedules.size(); ++s)
              for (int nodes : sc.platforms[p].nodes) configs.push_back({p, w, s, k, batch, nodes, value});
  return configs;
}

}  // namespace dasim::scenario
