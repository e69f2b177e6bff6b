// `dasim workload show NAME|FILE [--batch N] [--precision P] [--grad-precision P] [--fusion F]
//   [--memory-format M] [--optimizer O] [--grad-clip C] [--zero-grad Z] [--seq-len N]
//   [--length-bins COUNTS --bin-size N] [--bucket-cap SIZE]
//   [--calibration FILE] [--format table|json]`: per-layer table, totals and the DDP bucket plan of a
//   workload; with a calibration, its predicted step on one device.
// `dasim workload import TRACE.json --batch N --out W.json [--step N] [--params FILE]
//   [--precision P] [--name NAME]`: a workload file with the measured layer times of a
//   torch.profiler trace.
#include "calibration/calibration.hpp"
#include "commands.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "compute/step_prediction.hpp"
#include "workload/precision.hpp"
#include "workload/profiler_trace_import.hpp"
#include "workload/workload_file.hpp"
#include "workload/workload_report.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <stdexcept>

namespace dasim::cli {

namespace {

void add_import_command(CLI::App& workload) {
  struct ImportOptions {
    workload::TraceImportOptions trace;
    std::string out;
    std::string precision = "fp32";
    int step = -1;
  };
  auto o = std::make_shared<ImportOptions>();
  auto* importer = workload.add_subcommand(
      "import",
      "Workload file from a torch.profiler Chrome trace of one training step (measured layer times)");
  importer
      ->add_option("trace", o->trace.trace_file,
                   "Chrome trace JSON written by torch.profiler (export_chrome_trace)")
      ->required();
  importer->add_option("--out", o->out, "Workload JSON file to write")->required();
  importer->add_option("--batch", o->trace.batch, "Samples per GPU in the traced step")
      ->required()
      ->check(CLI::PositiveNumber);
  importer->add_option("--step", o->step, "Use ProfilerStep#N (default: the last complete step)")
      ->check(CLI::NonNegativeNumber);
  importer->add_option("--params", o->trace.params_file,
                       "Parameter shapes when the trace has none: [{\"name\", \"shape\" | \"numel\"}, ...]");
  importer
      ->add_option("--precision", o->precision,
                   "Precision the step trained in (fp32, tf32, fp16, bf16, amp, amp_bf16)")
      ->capture_default_str();
  importer->add_option("--name", o->trace.name, "Workload name (default: the trace file's stem)");
  importer->callback([o] {
    o->trace.precision = workload::parse_precision(o->precision, "--precision");
    if (o->step >= 0) o->trace.step = o->step;
    // Everything is read and checked before the file is written: bad input leaves no output.
    workload::TraceImport imported = workload::import_profiler_trace(o->trace);
    write_file_atomically(o->out, workload::imported_workload_json(imported).dump(2) + "\n");
    fmt::print("{}", workload::render_import_summary(imported, o->out));
  });
}

}  // namespace

void add_workload_command(CLI::App& app) {
  auto* workload = app.add_subcommand("workload", "Inspect built-in workloads and workload JSON files");
  workload->require_subcommand(1);
  add_import_command(*workload);

  struct ShowOptions {
    std::string spec;
    int batch = 1;
    std::string precision;
    std::string grad_precision;
    std::string fusion = "none";
    std::string memory_format = "channels_last";
    std::string optimizer;
    std::string grad_clip;
    std::string zero_grad;
    std::string activation_checkpointing;
    std::string calibration;
    int sequence_length = 0;
    std::string length_bins;
    int bin_size = 0;
    std::string bucket_cap = "25MiB";
    std::optional<double> bucket_cap_mb;
    std::string format = "table";
  };
  auto o = std::make_shared<ShowOptions>();
  auto* show =
      workload->add_subcommand("show", "Per-layer FLOPs, parameters, bytes, totals and DDP bucket plan");
  show->add_option(
          "workload", o->spec,
          "resnet50, resnet101, resnet152, inception-v3, vgg16, bert-large, gpt2-xl or a workload JSON file")
      ->required();
  show->add_option("--batch", o->batch, "Samples per device for the per-batch totals")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  show->add_option("--precision", o->precision,
                   "fp32, tf32, fp16, bf16, amp or amp_bf16 (default: the workload's)");
  show->add_option("--grad-precision", o->grad_precision,
                   "Gradient type a DDP communication hook sends: fp32, fp16 or bf16");
  show->add_option("--fusion", o->fusion, "none or bn_relu (BatchNorm + ReLU as one kernel)")
      ->capture_default_str();
  show->add_option("--memory-format", o->memory_format,
                   "channels_last or nchw (tensor-core convolutions transpose NCHW tensors)")
      ->capture_default_str();
  show->add_option("--optimizer", o->optimizer,
                   "sgd_momentum, adam, lamb or bert_adam (whose update is charged)");
  show->add_option("--grad-clip", o->grad_clip,
                   "none, norm or norm_and_scale (global-norm gradient clipping before the update)");
  show->add_option("--zero-grad", o->zero_grad,
                   "set_to_none, zero (PyTorch 1.x zero_grad(): a fill per tensor, backward accumulates) or "
                   "fill_only (apex amp)");
  show->add_option("--activation-checkpointing", o->activation_checkpointing,
                   "none or blocks (each block's forward runs again before its backward)");
  show->add_option("--calibration", o->calibration,
                   "Calibration file: also predict the step on that device (times per layer, samples/s)");
  show->add_option("--seq-len", o->sequence_length, "Sequence length (bert-large, gpt2-xl)")
      ->check(CLI::Range(1, 1 << 20));
  show->add_option(
      "--length-bins", o->length_bins,
      "Length counts file: micro-batches in length bins of --bin-size tokens (bert-large, gpt2-xl)");
  show->add_option("--bin-size", o->bin_size, "Tokens per length bin (with --length-bins)")
      ->check(CLI::Range(1, 1 << 16));
  show->add_option("--bucket-cap", o->bucket_cap, "DDP bucket cap (the scenario's bucket_cap, e.g. 25MiB)")
      ->capture_default_str();
  // DDP's own knob, in MiB; kept from before --bucket-cap, hidden from --help.
  show->add_option("--bucket-cap-mb", o->bucket_cap_mb)->check(CLI::PositiveNumber)->group("");
  show->add_option("--format", o->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  show->callback([o] {
    workload::WorkloadOptions options;
    if (!o->precision.empty()) options.precision = workload::parse_precision(o->precision);
    if (!o->grad_precision.empty())
      options.grad_precision = workload::parse_precision(o->grad_precision, "--grad-precision");
    options.fusion = workload::parse_fusion(o->fusion);
    options.memory_format = workload::parse_memory_format(o->memory_format);
    if (!o->optimizer.empty()) options.optimizer = workload::parse_optimizer(o->optimizer);
    if (!o->grad_clip.empty()) options.grad_clip = workload::parse_grad_clip(o->grad_clip);
    if (!o->zero_grad.empty()) options.zero_grad = workload::parse_zero_grad(o->zero_grad);
    if (!o->activation_checkpointing.empty())
      options.activation_checkpointing =
          workload::parse_activation_checkpointing(o->activation_checkpointing);
    if (o->sequence_length > 0) options.sequence_length = o->sequence_length;
    if (o->length_bins.empty() != (o->bin_size == 0))
      throw InputError(o->length_bins.empty() ? "--bin-size: given without --length-bins"
                                              : "--length-bins: needs --bin-size (tokens per bin)");
    if (!o->length_bins.empty()) options.length_bins = workload::LengthBins{o->length_bins, o->bin_size};
    workload::Workload w = [&] {
      try {
        return workload::load_workload(o->spec, options);
      } catch (const workload::LengthBinsError& e) {
        throw InputError((e.key() == "bin_size" ? "--bin-size: " : "--length-bins: ") +
                         std::string(e.what()));
      } catch (const workload::SequenceLengthError& e) {
        throw InputError(std::string("--seq-len: ") + e.what());  // the model says what, the CLI where
      } catch (const workload::CheckpointingError& e) {
        throw InputError(std::string("--activation-checkpointing: ") + e.what());
      }
    }();
    std::optional<calibration::Calibration> cal;
    if (!o->calibration.empty()) cal = calibration::load_calibration(o->calibration);
    double cap_bytes = 0;
    try {
      cap_bytes = o->bucket_cap_mb ? *o->bucket_cap_mb * 1024 * 1024 : units::parse_bytes(o->bucket_cap);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("--bucket-cap: ") + e.what());
    }
    if (!(cap_bytes > 0)) throw InputError("--bucket-cap: expected a size > 0");
    workload::ReportOptions report{o->batch, cap_bytes};
    if (!cal) {
      if (o->format == "json")
        fmt::print("{}\n", workload::workload_report_json(w, report).dump(2));
      else
        fmt::print("{}", workload::render_workload_table(w, report));
      return;
    }
    compute::ComputeModel model(*cal, w.precision);
    auto step = compute::predict_step(w, model, o->batch);
    if (o->format == "json") {
      auto out = workload::workload_report_json(w, report);
      out["step"] = compute::to_json(step, w, model, o->calibration);
      fmt::print("{}\n", out.dump(2));
    } else {
      fmt::print("{}{}", workload::render_workload_table(w, report),
                 compute::render_step(step, w, model, o->calibration));
    }
  });
}

}  // namespace dasim::cli
