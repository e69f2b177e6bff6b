// `dasim calibrate --device cuda|cpu [--quick] [--batches LIST] [--time-budget S] --out FILE`: runs
// the kernel microbenchmarks of kernels/ and writes a calibration file for the compute model.
// Progress goes to stderr.
#include "commands.hpp"
#include "common/errors.hpp"
#include "common/sibling_program.hpp"
#include "kernels/calibrate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>

namespace dasim::cli {

namespace {
struct CalibrateArgs {
  std::string device;
  bool quick = false;
  std::vector<int> batches;
  double time_budget_s = 0;
  std::string out;
};

#ifndef DASIM_CALIBRATE_CUDA_MAIN
// The arguments again, for the CUDA sibling (dasim-calibrate-cuda) that runs --device cuda.
std::vector<std::string> arguments(const CalibrateArgs& args) {
  std::vector<std::string> out{"calibrate", "--device", args.device, "--out", args.out};
  if (args.quick) out.push_back("--quick");
  if (!args.batches.empty())
    out.insert(out.end(), {"--batches", fmt::format("{}", fmt::join(args.batches, ","))});
  if (args.time_budget_s > 0) out.insert(out.end(), {"--time-budget", fmt::format("{}", args.time_budget_s)});
  return out;
}
#endif

// dasim links no CUDA library (their static initialisation costs every dasim command about half a
// second): --device cuda runs in dasim-calibrate-cuda beside it, which replaces this process.
// Without the sibling (a build without CUDA) the calibration below says the suite is not built.
void exec_cuda_sibling(const CalibrateArgs& args) {
#ifndef DASIM_CALIBRATE_CUDA_MAIN
  const std::string sibling = sibling_program("dasim-calibrate-cuda");
  if (sibling.empty()) return;
  std::vector<std::string> words{sibling};
  for (auto& a : arguments(args)) words.push_back(std::move(a));
  throw RuntimeFailure(fmt::format("{}: cannot run it: {}", sibling, replace_process(sibling, words)));
#else
  (void)args;  // this is the sibling
#endif
}

std::string command_line(const CalibrateArgs& args) {
  std::string extra;
  if (!args.batches.empty()) extra += fmt::format(" --batches {}", fmt::join(args.batches, ","));
  if (args.time_budget_s > 0) extra += fmt::format(" --time-budget {}", args.time_budget_s);
  return fmt::format("dasim calibrate --device {}{}{} --out {}", args.device, args.quick ? " --quick" : "",
                     extra, args.out);
}
}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Measure GEMM/conv/memory/communication kernels and write a calibration file");
  cmd->add_option("--device", args->device, "cpu or cuda")->required()->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_flag("--quick", args->quick, "small sizes and few repetitions (seconds; for tests)");
  cmd->add_option("--batches", args->batches,
                  "batches of the per-shape conv and GEMM times, e.g. 64,256 (default cpu 32, cuda "
                  "32,64,128,256; --quick 1 / 1,8)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--time-budget", args->time_budget_s,
                  "seconds after which no further optional benchmark starts (the skipped ones are listed "
                  "in the file's sources; 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", args->out, "calibration JSON to write")->required();
  cmd->callback([args] {
    kernels::CalibrateRequest request;
    request.device = args->device;
    request.quick = args->quick;
    request.batches = args->batches;
    request.time_budget_s = args->time_budget_s;
    request.out = args->out;
    request.command_line = command_line(*args);
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) request.helper_dir = self.parent_path().string();
    if (args->device == "cuda") exec_cuda_sibling(*args);
    request.progress = [](const std::string& line) { fmt::print(stderr, "calibrate: {}\n", line); };
    calibration::Calibration c = kernels::run_calibration(request);
    fmt::print("{}: {} measured; fp32 {:.4g} FLOP/s, memory {:.4g} B/s, launch {:.3g} s -> {}\n",
               args->device, c.device.name, c.fitted.flops.at("fp32"), c.fitted.memory_bandwidth_Bps,
               c.fitted.launch_overhead_s, args->out);
  });
}

}  // namespace dasim::cli
