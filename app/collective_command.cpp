// `dasim collective`: nccl-tests-style sweep of a collective on a simulated platform. Columns have
// nccl-tests' meaning (size in bytes, time in us, algbw and busbw in GB/s) so a real nccl-tests
// run can be put beside the prediction.
#include "collectives/collective_benchmark.hpp"
#include "collectives/nccl_model.hpp"
#include "collectives/symmetry.hpp"
#include "commands.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "platform/platform_loader.hpp"
#include "runtime/isolated_run.hpp"
#include "simulation_guard.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>

namespace dasim::cli {
namespace {

struct CollectiveArgs {
  std::string platform;
  int nodes = 0;
  std::string op = "allreduce";
  std::string algo = "auto";
  std::string protocol = "auto";
  int ring_channels = 0;
  int tree_channels = 0;
  std::string min_bytes = "8";
  std::string max_bytes = "1G";
  double factor = 2;
  std::string format = "table";
  bool fine = false;
  bool no_fold = false;
  bool fold_trees_across_leaves = false;
  bool reduction = false;
  double memory_bandwidth_Bps = 900e9;
  bool quiet = false;
  bool force = false;
};

double parse_size(const std::string& text, const char* option) {
  try {
    return units::parse_bytes(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: {}", option, e.what()));
  }
}

void run(const CollectiveArgs& a) {
  auto spec = platform::load_platform(a.platform, a.nodes > 0 ? std::optional<int>(a.nodes) : std::nullopt);
  collectives::CollectiveOptions options;
  options.algorithm = *collectives::kAlgorithmNames.parse(a.algo);    // checked by IsMember
  options.protocol = *collectives::kProtocolNames.parse(a.protocol);  // checked by IsMember
  options.ring_channels = a.ring_channels;
  options.tree_channels = a.tree_channels;
  if (options.algorithm == collectives::Algorithm::nvls &&
      !collectives::can_run(collectives::summarize_topology(spec), collectives::Op::allreduce,
                            collectives::Algorithm::nvls, options.protocol))
    throw InputError(
        fmt::format("--algo nvls: {} ({} nodes) has no NVSwitch with NVLink SHARP on one node, or "
                    "--protocol {} is not simple",
                    spec.name, spec.nodes, a.protocol));
  options.granularity = a.fine ? collectives::Granularity::fine : collectives::Granularity::coarse;
  options.fold = !a.no_fold;
  options.fold_trees_across_leaves = a.fold_trees_across_leaves;
  options.reduction_compute = a.reduction;
  options.memory_bandwidth_Bps = a.memory_bandwidth_Bps;
  collectives::Op op;
  try {
    op = collectives::parse_op(a.op);
  } catch (const InputError& e) {
    throw InputError(std::string("--op: ") + e.what());
  }
  const double min_bytes = parse_size(a.min_bytes, "--min-bytes");
  const double max_bytes = parse_size(a.max_bytes, "--max-bytes");
  if (min_bytes <= 0) throw InputError("--min-bytes: expected a size > 0 bytes");
  for (const auto& [flag, value] : {std::pair{"--min-bytes", min_bytes}, std::pair{"--max-bytes", max_bytes}})
    if (value > collectives::kMaxCollectiveBytes)
      throw InputError(fmt::format("{}: expected a size <= 2^50 bytes (1 PiB), got {} bytes", flag, value));
  auto sizes = collectives::geometric_sizes(min_bytes, max_bytes, a.factor);
  if (op != collectives::Op::allreduce && options.algorithm != collectives::Algorithm::ring &&
      options.algorithm != collectives::Algorithm::automatic)
    throw InputError(fmt::format("--algo {}: {} is implemented with the ring algorithm only", a.algo, a.op));

  guard_simulation(spec, a.platform, a.nodes, a.force);
  const auto wall_start = std::chrono::steady_clock::now();
  // A terminal gets one progress line rewritten in place; a log file gets a line per size.
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  // One simulation for the whole sweep; the child reports each finished size on stderr.
  std::string out = runtime::run_isolated([&] {
    auto samples = collectives::simulate_collective_sweep(spec, options, op, sizes, 1, [&](size_t i) {
      if (a.quiet) return;
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      fmt::print(stderr, "{}[collective] size {}/{} ({}) simulated, {:.1f} s wall{}", terminal ? "\r" : "",
                 i + 1, sizes.size(), units::format_bytes(sizes[i]), elapsed,
                 !terminal || i + 1 == sizes.size() ? "\n" : "");
    });
    return collectives::to_wire(samples);
  });

  const auto rows = collectives::samples_from_wire(out);
  if (a.format == "csv") {
    fmt::print("size_bytes,time_us,algbw_GBps,busbw_GBps,algorithm\n");
    for (const auto& r : rows)
      fmt::print("{:.0f},{:.3f},{:.3f},{:.3f},{}\n", r.bytes, r.time_s * 1e6, r.algbw_Bps / 1e9,
                 r.busbw_Bps / 1e9, r.choice);
    return;
  }
  std::vector<collectives::CollectiveCall> calls;
  for (double bytes : sizes) calls.emplace_back(op, bytes);
  const std::string why_not = collectives::why_not_symmetric(spec, options, calls);
  const bool folded = why_not.empty();
  // Why every node is simulated, where there are nodes to fold: a sweep that is slow says why.
  const bool foldable = spec.nodes > collectives::kFoldedNodes && !a.no_fold;
  fmt::print("# dasim collective: {} {} (protocol {}) on {} ({} x {} = {}), {} flows{}\n", a.op, a.algo,
             a.protocol, spec.name, units::format_count(spec.nodes, "node"),
             units::format_count(spec.gpus_per_node, "GPU"), units::format_count(spec.total_gpus(), "rank"),
             a.fine ? "fine-grained" : "coarse",
             folded     ? fmt::format(", simulated on {} of the nodes (symmetric: --no-fold simulates all)",
                                      collectives::kFoldedNodes)
             : foldable ? fmt::format(", every node simulated (not folded: {})", why_not)
                        : "");
  fmt::print("# busbw = algbw x {} (nccl-tests convention)\n", op == collectives::Op::allreduce ? "2(n-1)/n"
                                                               : op == collectives::Op::broadcast
                                                                   ? "1"
                                                                   : "(n-1)/n");
  fmt::print("{:>14} {:>14} {:>10} {:>10}  {}\n", "size(B)", "time(us)", "algbw", "busbw", "algorithm");
  fmt::print("{:>14} {:>14} {:>10} {:>10}\n", "", "", "(GB/s)", "(GB/s)");
  for (const auto& r : rows)
    fmt::print("{:>14.0f} {:>14.2f} {:>10.2f} {:>10.2f}  {}\n", r.bytes, r.time_s * 1e6, r.algbw_Bps / 1e9,
               r.busbw_Bps / 1e9, r.choice);
}

}  // namespace

void add_collective_command(CLI::App& app) {
  auto a = std::make_shared<CollectiveArgs>();
  auto* cmd =
      app.add_subcommand("collective", "nccl-tests-style sweep of a collective on a simulated platform");
  cmd->add_option("--platform", a->platform, "Platform JSON file")->required();
  cmd->add_option("--nodes", a->nodes,
                  "Override the node count (ranks = nodes x GPUs per node; default: the file's)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--op", a->op, "allreduce | reduce_scatter | all_gather | broadcast")
      ->capture_default_str();
  cmd->add_option("--algo", a->algo,
                  "ring, tree, hierarchical, nvls, or auto (as NCCL's tuner picks, per size)")
      ->check(CLI::IsMember(collectives::kAlgorithmNames.names()))
      ->capture_default_str();
  cmd->add_option("--protocol", a->protocol,
                  "auto (per size), simple, ll128, ll, or links (no protocol model: the links' own figures)")
      ->check(CLI::IsMember(collectives::kProtocolNames.names()))
      ->capture_default_str();
  cmd->add_option("--ring-channels", a->ring_channels, "rings side by side (0: one per NIC)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_option("--tree-channels", a->tree_channels, "double trees side by side (0: one per NIC)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_option("--min-bytes", a->min_bytes, "Smallest size (e.g. 8, 1K, 1M)")->capture_default_str();
  cmd->add_option("--max-bytes", a->max_bytes, "Largest size (e.g. 1G)")->capture_default_str();
  cmd->add_option("--factor", a->factor, "Size multiplier between rows")->capture_default_str();
  cmd->add_option("--format", a->format, "table | csv")
      ->check(CLI::IsMember({"table", "csv"}))
      ->capture_default_str();
  cmd->add_flag("--fine", a->fine, "Fine-grained messages (every ring step) instead of coarse flows");
  cmd->add_flag("--no-fold", a->no_fold,
                "Simulate every node even where two nodes stand for all (a symmetric sweep)");
  cmd->add_flag("--fold-trees-across-leaves", a->fold_trees_across_leaves,
                "Fold trees across fat-tree leaves too (never slower than every node simulated, up to 2.6% "
                "faster: docs/performance.md)")
      ->excludes("--no-fold");
  cmd->add_flag("--reduction-compute", a->reduction, "Add reduction time (3 x bytes / memory bandwidth)");
  cmd->add_option("--memory-bandwidth", a->memory_bandwidth_Bps, "GPU memory bandwidth for reductions, B/s")
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->add_flag("--force", a->force, "Simulate even beyond the GPU limit or the machine's memory");
  cmd->callback([a] { run(*a); });
}

}  // namespace dasim::cli
