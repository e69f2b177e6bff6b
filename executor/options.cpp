// CLI11 parsing and cross-field validation of dasim-train's arguments (see options.hpp).
#include "options.hpp"

#include "common/errors.hpp"
#include "common/units.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <sstream>

namespace dasim::executor {
namespace {

std::vector<int> parse_widths(const std::string& text) {
  std::vector<int> widths;
  if (text.empty() || text == "none") return widths;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || value <= 0)
      throw InputError(
          "--hidden: expected comma-separated positive layer widths (e.g. 256,256) or 'none', got '" + text +
          "'");
    widths.push_back(value);
  }
  return widths;
}

// The text of the options that are parsed further after CLI11 (names, lists, sizes).
struct RawOptions {
  std::string schedule = "sgd", hidden = "256,256", bucket = "256KiB", device = "cpu";
  std::optional<int> tau, delay, H, fragments, overlap_steps;
  std::optional<double> alpha, outer_lr, outer_momentum, top_k;
  std::optional<int> bits;
  std::optional<std::string> outer_optimizer;
  std::optional<int> island_ranks;
  std::optional<std::string> data_parallel;
  std::optional<int> accumulation_steps;
  bool eager = false;
  int64_t seed = 1;
  std::vector<CLI::Option*> synthetic_flags;
};

[[noreturn]] void bad(const std::string& what) {
  throw InputError("dasim-train: " + what);
}

void add_options(CLI::App& app, TrainOptions& o, RawOptions& raw) {
  app.add_option("--device", raw.device,
                 "cpu (OpenBLAS + MPI) or cuda (cuBLAS/cuDNN + NCCL, one GPU per rank)")
      ->check(CLI::IsMember(kDeviceNames.names()))
      ->capture_default_str();
  app.add_option("--schedule", raw.schedule, schedules::kScheduleKindNames.listed())
      ->check(CLI::IsMember(schedules::kScheduleKindNames.names()))
      ->capture_default_str();
  app.add_option("--tau", raw.tau, "local steps between averagings (local_sgd, dasgd; default 4)");
  app.add_option("--delay", raw.delay, "dasgd: steps the average is in flight, 0 <= d <= tau (default 1)");
  app.add_option("--H", raw.H, "diloco, streaming_diloco: inner steps per outer round (default 20)");
  app.add_option("--fragments", raw.fragments,
                 "streaming_diloco: fragments of whole layers, dividing H (default 2)");
  app.add_option("--overlap-steps", raw.overlap_steps,
                 "streaming_diloco: inner steps a fragment's average is in flight, 0..H (default 1)");
  app.add_option("--alpha", raw.alpha,
                 "streaming_diloco: w <- alpha w + (1 - alpha) outer weights (default 0)");
  app.add_option("--outer-optimizer", raw.outer_optimizer, schedules::kOuterOptimizerNames.listed())
      ->check(CLI::IsMember(schedules::kOuterOptimizerNames.names()));
  app.add_option("--outer-lr", raw.outer_lr, "diloco family: outer learning rate (default 0.7)");
  app.add_option("--outer-momentum", raw.outer_momentum, "diloco family: Nesterov momentum (default 0.9)");
  app.add_flag(
      "--eager", raw.eager,
      "diloco: eager outer steps, each round's allreduce overlapping the next round (arXiv 2502.12996)");
  app.add_option(
      "--island-ranks", raw.island_ranks,
      "hierarchical data parallelism: islands of this many consecutive ranks average gradients every "
      "step; the periodic schedule runs between islands (default 1: every rank a worker)");
  app.add_option(
         "--data-parallel", raw.data_parallel,
         "ddp (every rank holds the whole model) or fsdp (each rank of the group holds 1/g of it and "
         "all-gathers a bucket's layers before using them, PyTorch FSDP); the group is every rank for "
         "sgd, an island otherwise (default ddp)")
      ->check(CLI::IsMember(schedules::kDataParallelNames.names()));
  app.add_option("--bits", raw.bits,
                 "diloco, streaming_diloco: round each outer gradient (or its top-k values) to 16, 8 or 4 "
                 "bits, symmetric with one absmax scale per fragment, before the sum; not with --eager or "
                 "--device cuda (docs/algorithms.md)");
  app.add_option("--top-k", raw.top_k,
                 "diloco, streaming_diloco: send this fraction, in [1e-9, 1), of each outer gradient's "
                 "entries, the largest, with error feedback, all-gathered as (index, value) pairs; not with "
                 "--eager, islands or --device cuda (docs/algorithms.md)");
  app.add_option("--hidden", raw.hidden, "hidden layer widths, comma-separated, or 'none'")
      ->capture_default_str();
  app.add_option("--batch", o.batch, "minibatch per rank (with accumulation: per micro-batch)")
      ->capture_default_str();
  app.add_option("--gradient-accumulation-steps", raw.accumulation_steps,
                 "micro-batches per step, their gradients added and (sgd, islands) allreduced once after "
                 "the last (default 1)");
  app.add_option("--lr", o.lr, "learning rate")->capture_default_str();
  app.add_option("--steps", o.steps, "training steps")->capture_default_str();
  app.add_option("--seed", raw.seed, "seed of data and initial weights")->capture_default_str();
  raw.synthetic_flags = {
      app.add_option("--features", o.synthetic.features, "synthetic task: input features")
          ->capture_default_str(),
      app.add_option("--classes", o.synthetic.classes, "synthetic task: classes")->capture_default_str(),
      app.add_option("--samples", o.synthetic.samples, "synthetic task: samples over all ranks")
          ->capture_default_str(),
      app.add_option("--noise", o.synthetic.noise, "synthetic task: sample spread around the class centre")
          ->capture_default_str()};
  app.add_option("--mnist-images", o.mnist_images,
                 "IDX images file (with --mnist-labels) instead of synthetic data");
  app.add_option("--mnist-labels", o.mnist_labels, "IDX labels file");
  // The scenario's `bucket_cap`; --bucket is the earlier name, still accepted.
  app.add_option("--bucket-cap,--bucket", raw.bucket, "sgd gradient bucket cap (e.g. 256KiB, 25MiB)")
      ->capture_default_str();
  app.add_option("--target-loss", o.target_loss, "loss to reach (moving average over --target-window steps)")
      ->capture_default_str();
  app.add_option("--target-window", o.target_window, "steps in the loss moving average")
      ->capture_default_str();
  app.add_option("--warmup-steps", o.warmup_steps,
                 "steps excluded from timing statistics (rounded up to whole averaging periods)")
      ->capture_default_str();
  app.add_option("-o,--output", o.output, "result JSON (rank 0 writes it)")->capture_default_str();
  app.add_option("--csv", o.csv, "result rows as CSV (default: --output with .csv)");
  app.add_option("--profile", o.profile, "write the per-layer times as a dasim workload JSON");
  app.add_option("--scenario", o.scenario, "scenario name in the result row")->capture_default_str();
  app.add_option("--baseline-throughput", o.baseline_throughput,
                 "samples/s of the 1-rank run, to fill speedup and efficiency");
  app.add_flag("--check-consistency", o.check_consistency,
               "compare a hash of every rank's weights after every step with what the schedule implies");
  app.add_flag("--verify", o.verify, "rank 0 reruns the schedule serially and compares weights and losses");
  app.add_option("--blas-threads", o.blas_threads, "OpenBLAS threads per rank")->capture_default_str();
  app.add_option("--comm-timeout", o.comm_timeout_s,
                 "seconds a blocking communication may take before the rank "
                 "gives up (a peer died or hangs)")
      ->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  app.add_flag("--print-plan", o.print_plan,
               "print the model, the sgd buckets, the weights' bytes and the timed steps as JSON; no MPI, no "
               "training");
}

// The DiLoCo family's parameters, with the ranges a scenario allows (scenario/schedule_reader.cpp).
void finish_diloco(TrainOptions& o, const RawOptions& raw) {
  auto& s = o.schedule;
  s.tau = raw.H.value_or(20);
  if (s.tau < 1) bad(fmt::format("--H: expected an integer >= 1, got {}", s.tau));
  if (s.kind == schedules::ScheduleKind::streaming_diloco) {
    s.fragments = raw.fragments.value_or(2);
    if (s.fragments < 1 || s.tau % s.fragments != 0)
      bad(fmt::format("--fragments: expected a fragment count that divides H = {}, got {}", s.tau,
                      s.fragments));
    s.delay = raw.overlap_steps.value_or(1);
    if (s.delay < 0 || s.delay > s.tau)
      bad(fmt::format("--overlap-steps: expected 0 <= overlap <= H = {}, got {}", s.tau, s.delay));
    s.alpha = raw.alpha.value_or(0.0);
    if (!(s.alpha >= 0 && s.alpha <= 1))
      bad(fmt::format("--alpha: expected a factor in [0, 1], got {}", s.alpha));
  } else if (raw.fragments || raw.overlap_steps || raw.alpha) {
    bad("--fragments/--overlap-steps/--alpha: diloco synchronises the whole model at once (use "
        "streaming_diloco)");
  }
  if (raw.eager) {
    if (s.kind != schedules::ScheduleKind::diloco) bad("--eager: only diloco has eager outer steps");
    s.eager = true;
  }
  if (raw.bits) {
    if (!schedules::is_payload_bits(*raw.bits))
      bad(fmt::format("--bits: expected 32, 16, 8 or 4 bits per value, got {}", *raw.bits));
    if (s.eager && *raw.bits != 32)
      bad("--bits: eager outer steps combine dense fp32 outer gradients; use diloco without --eager");
    s.payload_bits = *raw.bits;
  }
  if (raw.top_k) {
    if (!(*raw.top_k >= 1e-9 && *raw.top_k < 1))
      bad(fmt::format("--top-k: expected the fraction of entries sent, in [1e-9, 1), got {}", *raw.top_k));
    if (s.eager) bad("--top-k: eager outer steps combine dense outer gradients; use diloco without --eager");
    if (has_islands(s))
      bad("--top-k: with islands the simulator selects on each GPU's shard of the island's payload; the "
          "trainer sparsifies without islands only");
    s.top_k.density = *raw.top_k;
  }
  if (raw.outer_optimizer) s.outer.optimizer = *schedules::kOuterOptimizerNames.parse(*raw.outer_optimizer);
  s.outer.lr = raw.outer_lr.value_or(s.outer.lr);
  if (!(s.outer.lr > 0 && s.outer.lr <= 10))
    bad(fmt::format("--outer-lr: expected an outer learning rate in (0, 10], got {}", s.outer.lr));
  if (s.outer.optimizer == schedules::OuterOptimizer::sgd) {
    if (raw.outer_momentum) bad("--outer-momentum: the sgd outer optimizer has no momentum");
    s.outer.momentum = 0;
  } else {
    s.outer.momentum = raw.outer_momentum.value_or(s.outer.momentum);
    if (!(s.outer.momentum >= 0 && s.outer.momentum < 1))
      bad(fmt::format("--outer-momentum: expected a momentum in [0, 1), got {}", s.outer.momentum));
  }
}

// The schedule and its parameters: tau and delay only where the schedule has them.
void finish_schedule(TrainOptions& o, const RawOptions& raw) {
  o.schedule.kind = *schedules::kScheduleKindNames.parse(raw.schedule);  // checked by IsMember
  if (raw.island_ranks) {
    if (o.schedule.kind == schedules::ScheduleKind::sgd)
      bad("--island-ranks: sgd has no islands (every step averages)");
    if (*raw.island_ranks < 1)
      bad(fmt::format("--island-ranks: expected an integer >= 1, got {}", *raw.island_ranks));
    o.schedule.island_gpus = *raw.island_ranks;
  }
  if (raw.data_parallel) {
    o.schedule.data_parallel = *schedules::kDataParallelNames.parse(*raw.data_parallel);  // IsMember
    if (o.schedule.data_parallel == schedules::DataParallel::fsdp &&
        o.schedule.kind != schedules::ScheduleKind::sgd && !has_islands(o.schedule))
      bad("--data-parallel: a periodic schedule shards the model only inside islands (set --island-ranks "
          "above 1)");
  }
  if (raw.accumulation_steps) {
    if (*raw.accumulation_steps < 1 || *raw.accumulation_steps > schedules::kMostAccumulationSteps)
      bad(fmt::format("--gradient-accumulation-steps: expected an integer in 1..{}, got {}",
                      schedules::kMostAccumulationSteps, *raw.accumulation_steps));
    if (*raw.accumulation_steps > 1 && o.schedule.data_parallel == schedules::DataParallel::fsdp)
      bad("--gradient-accumulation-steps: accumulation runs with ddp only (fsdp's micro-batches are not "
          "modelled)");
    o.schedule.accumulation_steps = *raw.accumulation_steps;
  }
  const bool diloco = is_diloco_family(o.schedule);
  if (!diloco && (raw.H || raw.fragments || raw.overlap_steps || raw.alpha || raw.outer_optimizer ||
                  raw.outer_lr || raw.outer_momentum || raw.eager || raw.top_k || raw.bits))
    bad("--H/--fragments/--overlap-steps/--alpha/--outer-*/--eager/--top-k/--bits: only for diloco and "
        "streaming_diloco");
  if (diloco) {
    if (raw.tau || raw.delay) bad("--tau/--delay: the DiLoCo family takes --H and --overlap-steps");
    finish_diloco(o, raw);
  } else if (o.schedule.kind == schedules::ScheduleKind::sgd) {
    if (raw.tau.value_or(1) != 1 || raw.delay.value_or(0) != 0)
      bad("--tau/--delay: sgd averages every step (tau 1, delay 0)");
  } else {
    o.schedule.tau = raw.tau.value_or(4);
    if (o.schedule.tau < 1) bad(fmt::format("--tau: expected an integer >= 1, got {}", o.schedule.tau));
    if (o.schedule.kind == schedules::ScheduleKind::local_sgd) {
      if (raw.delay.value_or(0) != 0) bad("--delay: local_sgd averages without delay (use dasgd)");
    } else {
      o.schedule.delay = raw.delay.value_or(1);
      if (o.schedule.delay < 0 || o.schedule.delay > o.schedule.tau)
        bad(fmt::format("--delay: expected 0 <= delay <= tau ({}), got {}", o.schedule.tau,
                        o.schedule.delay));
    }
  }
}

// Every other option: ranges and the combinations that cannot work together.
void finish_options(TrainOptions& o, const RawOptions& raw) {
  o.device = *kDeviceNames.parse(raw.device);  // checked by IsMember
  if (o.device == Device::cuda && schedules::has_islands(o.schedule))
    bad("--island-ranks: the NCCL trainer has one communicator for all ranks; islands run on --device cpu");
  if (o.device == Device::cuda && o.schedule.data_parallel == schedules::DataParallel::fsdp)
    bad("--data-parallel: the NCCL trainer keeps whole models; fsdp runs on --device cpu");
  if (o.device == Device::cuda && o.schedule.payload_bits != 32)
    bad("--bits: the NCCL trainer all-reduces fp32 outer gradients; rounding runs on --device cpu");
  if (o.device == Device::cuda && schedules::has_top_k(o.schedule))
    bad("--top-k: the NCCL trainer all-reduces dense outer gradients; top-k runs on --device cpu");
  if (o.schedule.accumulation_steps > 1 && !o.profile.empty())
    bad("--profile: a profile holds one batch's layer times and update; with "
        "--gradient-accumulation-steps the step has several batches (profile without it)");
  if (o.device == Device::cuda && !o.profile.empty())
    bad("--profile: per-layer times are measured on --device cpu only");
  if (o.device == Device::cuda && o.verify)
    bad("--verify: the serial reference runs on the CPU, whose rounding differs from cuBLAS; use --device "
        "cpu");
  o.hidden = parse_widths(raw.hidden);
  if (const int layers = static_cast<int>(o.hidden.size()) + 1; o.schedule.fragments > layers)
    bad(fmt::format(
        "--fragments: expected at most {} fragments, the MLP's layers (a fragment is whole layers), got {}",
        layers, o.schedule.fragments));
  try {
    o.schedule.bucket_cap_bytes = units::parse_bytes(raw.bucket);
  } catch (const std::exception& e) {
    bad(std::string("--bucket-cap: ") + e.what());
  }
  if (!(o.schedule.bucket_cap_bytes > 0)) bad("--bucket-cap: expected a size > 0");
  if (o.batch < 1) bad(fmt::format("--batch: expected an integer >= 1, got {}", o.batch));
  if (!(o.lr > 0) || !std::isfinite(o.lr)) bad("--lr: expected a finite learning rate > 0");
  if (o.steps < 1) bad(fmt::format("--steps: expected an integer >= 1, got {}", o.steps));
  if (raw.seed < 0) bad("--seed: expected an integer >= 0");
  o.synthetic.seed = static_cast<uint64_t>(raw.seed);
  o.seed = static_cast<uint64_t>(raw.seed);
  if (o.synthetic.features < 1) bad("--features: expected an integer >= 1");
  if (o.synthetic.classes < 2) bad("--classes: expected an integer >= 2");
  if (o.synthetic.samples < 1) bad("--samples: expected an integer >= 1");
  if (!(o.synthetic.noise >= 0) || !std::isfinite(o.synthetic.noise))
    bad("--noise: expected a finite number >= 0");
  if (o.mnist_images.empty() != o.mnist_labels.empty()) bad("--mnist-images and --mnist-labels go together");
  if (!o.mnist_images.empty())
    for (const auto* flag : raw.synthetic_flags)
      if (flag->count() > 0)
        bad(flag->get_name() + ": describes the synthetic task, which --mnist-images replaces");
  if (!(o.target_loss > 0)) bad("--target-loss: expected a loss > 0");
  if (o.target_window < 1) bad("--target-window: expected an integer >= 1");
  if (o.warmup_steps < 0 || o.warmup_steps >= o.steps)
    bad(fmt::format("--warmup-steps: expected 0 <= warmup < steps ({}), got {}", o.steps, o.warmup_steps));
  if (const schedules::SteadyWindow w = steady_window(o.schedule, o.steps, o.warmup_steps); w.count < 1)
    bad(fmt::format(
        "--steps: {} leaves no whole averaging period of {} steps to time after the warm-up "
        "({} steps, rounded up to whole periods: {}); use --steps >= {}",
        o.steps, sync_period(o.schedule), o.warmup_steps, w.first, w.first + sync_period(o.schedule)));
  if (o.output.empty()) bad("--output: expected a file name");
  if (o.baseline_throughput < 0) bad("--baseline-throughput: expected samples/s >= 0");
  if (o.blas_threads < 1) bad("--blas-threads: expected an integer >= 1");
  if (!(o.comm_timeout_s > 0)) bad("--comm-timeout: expected seconds > 0");
  if (o.csv.empty()) {
    const auto dot = o.output.rfind('.');
    const auto slash = o.output.rfind('/');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    o.csv = (has_ext ? o.output.substr(0, dot) : o.output) + ".csv";
  }
}

}  // namespace

ParsedOptions parse_train_options(int argc, const char* const* argv) {
  TrainOptions o;
  RawOptions raw;
  CLI::App app{
      "dasim-train: real data-parallel training of an MLP over MPI with sgd, local_sgd, dasgd, diloco or "
      "streaming_diloco"};
  add_options(app, o, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {std::nullopt, app.help()};
  } catch (const CLI::ParseError& e) {
    throw InputError(std::string("dasim-train: ") + e.what() + " (see --help)");
  }

  finish_schedule(o, raw);
  finish_options(o, raw);
  return {o, ""};
}

}  // namespace dasim::executor
