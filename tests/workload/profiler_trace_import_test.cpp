// `dasim workload import` on tests/data/kineto/training_step.json, a hand-written torch.profiler
// trace of one SGD step of Net = Conv2d(3, 16, 3) -> ReLU -> flatten -> (+ 1) -> Linear(16384, 10)
// with F.cross_entropy outside the model, batch 8, and an unfinished ProfilerStep#2. Every number
// below is summed by hand from the fixture's kernel durations (us):
//   forward   Conv2d_0 40 + 5 = 45, ReLU_0 20, Net_0.aten::add 6 (stream 20), Linear_0 30   = 101
//   backward  Conv2d_0 (seq 10) 30 + 4 = 34, ReLU_0 (seq 11) 9, Linear_0 (AddmmBackward0, seq 15)
//             25 + 20 + 4 = 49                                                            = 92
//   outside   optimizer 12 + zero_grad memset 1 = 13; memcpy HtoD 8; not attributed: loss forward
//             4 + 3, ones_like 2, loss backward 2 + 3, AccumulateGrad 3 = 17 (6)          = 38
//   NCCL kernels dropped 2; streams 7 and 20 overlap 5 (clamp / add) + 4 (mm / sum) = 9 us.
//   Parameters: Conv2d_0 16 x 3 x 3 x 3 + 16 = 448; Linear_0 10 x 16384 + 10 = 163,850.
#include "workload/profiler_trace_import.hpp"
#include "common/errors.hpp"
#include "support/scratch_dir.hpp"
#include "workload/profiler_trace.hpp"
#include "workload/profiler_trace_steps.hpp"
#include "workload/workload_file.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace dasim::workload {
namespace {

const std::string kFixture = std::string(DASIM_SOURCE_DIR) + "/tests/data/kineto/training_step.json";
constexpr double kUs = 1e-6;
constexpr double kTolerance = 1e-12;  // seconds

nlohmann::json fixture_json() {
  return nlohmann::json::parse(std::ifstream(kFixture));
}

std::string temp_path(const std::string& name) {
  return (dasim::testing::scratch_dir("dasim_profiler_trace") / name).string();
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

// The fixture with `edit` applied to each trace event; events for which it returns false are removed.
std::string edited_fixture(const std::string& name, const std::function<bool(nlohmann::json&)>& edit) {
  nlohmann::json root = fixture_json();
  nlohmann::json kept = nlohmann::json::array();
  for (auto& e : root["traceEvents"])
    if (edit(e)) kept.push_back(e);
  root["traceEvents"] = kept;
  return write_temp(name, root.dump());
}

TraceImport import(const std::string& file, std::optional<int> step = std::nullopt,
                   const std::string& params = "") {
  TraceImportOptions options;
  options.trace_file = file;
  options.batch = 8;
  options.step = step;
  options.params_file = params;
  return import_profiler_trace(options);
}

std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_layer(const Layer& l, const std::string& name, LayerKind kind, int64_t params, double forward_us,
                  double backward_us) {
  EXPECT_EQ(l.name, name);
  EXPECT_EQ(l.kind, kind) << name;
  EXPECT_EQ(l.params, params) << name;
  ASSERT_TRUE(l.forward_time_s && l.backward_time_s) << name;
  EXPECT_NEAR(*l.forward_time_s, forward_us * kUs, kTolerance) << name;
  EXPECT_NEAR(*l.backward_time_s, backward_us * kUs, kTolerance) << name;
}

void expect_module_layers(const Workload& w) {
  ASSERT_EQ(w.layers.size(), 4u);
  expect_layer(w.layers[0], "Conv2d_0", LayerKind::conv, 448, 45, 34);
  expect_layer(w.layers[1], "ReLU_0", LayerKind::elementwise, 0, 20, 9);
  expect_layer(w.layers[2], "Net_0.aten::add", LayerKind::elementwise, 0, 6, 0);
  expect_layer(w.layers[3], "Linear_0", LayerKind::linear, 163850, 30, 49);
  ASSERT_TRUE(w.update_time_s);
  EXPECT_NEAR(*w.update_time_s, 38 * kUs, kTolerance);
}

TEST(ProfilerTraceImport, ModuleCallsBecomeLayersWithMeasuredTimes) {
  TraceImport imported = import(kFixture);
  const auto& s = imported.step;
  EXPECT_EQ(s.step, "ProfilerStep#1");  // the last complete step: #2 has no backward
  EXPECT_TRUE(s.module_calls);
  expect_module_layers(imported.workload);
  EXPECT_EQ(imported.workload.measured_batch, 8);
  EXPECT_EQ(imported.workload.name, "training_step");
  EXPECT_NEAR(s.forward_us(), 101, 1e-9);
  EXPECT_NEAR(s.backward_us(), 92, 1e-9);
  EXPECT_NEAR(s.optimizer_us, 13, 1e-9);
  EXPECT_EQ(s.optimizer_activities, 2);
  EXPECT_NEAR(s.host_copy_us, 8, 1e-9);
  EXPECT_EQ(s.host_copies, 1);
  EXPECT_NEAR(s.unattributed_us, 17, 1e-9);
  EXPECT_EQ(s.unattributed_activities, 6);
  EXPECT_EQ(s.nccl_kernels_dropped, 2);
  EXPECT_EQ(s.memcpy_memset_in_layers, 0);
  EXPECT_EQ(s.streams, (std::vector<int64_t>{7, 20}));
  EXPECT_NEAR(s.stream_overlap_us, 9, 1e-9);
  EXPECT_EQ(imported.params_from, "recorded shapes");
}

TEST(ProfilerTraceImport, WrittenFileLoadsThroughTheWorkloadLoader) {
  TraceImport imported = import(kFixture);
  std::string file = write_temp("roundtrip.json", imported_workload_json(imported).dump(2));
  Workload w = load_workload(file);
  expect_module_layers(w);
  EXPECT_EQ(w.measured_batch, 8);
  for (const auto& l : w.layers) EXPECT_EQ(l.measured_batch, 8) << l.name;
  EXPECT_EQ(w.total_params(), 448 + 163850);
  double forward = 0, backward = 0;
  for (const auto& l : w.layers) {
    forward += *l.forward_time_s;
    backward += *l.backward_time_s;
  }
  EXPECT_NEAR(forward, 101 * kUs, kTolerance);
  EXPECT_NEAR(backward, 92 * kUs, kTolerance);
  // The step's GPU time is all in the file: layers + update_time_s = 231 us of kept activities.
  EXPECT_NEAR(forward + backward + *w.update_time_s, 231 * kUs, kTolerance);
  EXPECT_NE(imported_workload_json(imported)["source"].get<std::string>().find("ProfilerStep#1, batch 8"),
            std::string::npos);
}

TEST(ProfilerTraceImport, TopLevelOpsAreLayersWithoutModuleCalls) {
  // Recorded without with_stack=True: no python_function events. Then the loss is a layer too
  // (its backward, seq 16 and 17, maps to it: 3 + 2), and so is the seed gradient's fill.
  std::string file = edited_fixture(
      "no_modules.json", [](nlohmann::json& e) { return e.value("cat", "") != "python_function"; });
  TraceImport imported = import(file);
  EXPECT_FALSE(imported.step.module_calls);
  const auto& w = imported.workload;
  ASSERT_EQ(w.layers.size(), 6u);
  expect_layer(w.layers[0], "aten::conv2d", LayerKind::conv, 448, 45, 34);
  expect_layer(w.layers[1], "aten::relu", LayerKind::elementwise, 0, 20, 9);
  expect_layer(w.layers[2], "aten::add", LayerKind::elementwise, 0, 6, 0);
  expect_layer(w.layers[3], "aten::linear", LayerKind::linear, 163850, 30, 49);
  expect_layer(w.layers[4], "aten::cross_entropy_loss", LayerKind::elementwise, 0, 7, 5);
  expect_layer(w.layers[5], "aten::ones_like", LayerKind::elementwise, 0, 2, 0);
  // Outside: optimizer 13 + memcpy 8 + AccumulateGrad 3.
  EXPECT_NEAR(*w.update_time_s, 24 * kUs, kTolerance);
  EXPECT_EQ(imported.step.unattributed_activities, 1);
}

TEST(ProfilerTraceImport, FlowEventsCorrelateActivitiesWithoutCorrelationArgs) {
  std::string file = edited_fixture("flows_only.json", [](nlohmann::json& e) {
    std::string cat = e.value("cat", "");
    if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") && e.contains("args")) {
      e["args"].erase("correlation");
      e["args"].erase("External id");
    }
    return true;
  });
  expect_module_layers(import(file).workload);
}

TEST(ProfilerTraceImport, BackwardNodesWithoutSequenceNumbersUseTheirBackwardOp) {
  // PyTorch before the "Plumb Autograd info to the top level annotation" change wrote the sequence
  // number on XBackward0 only, not on the evaluate_function event around it.
  std::string file = edited_fixture("old_sequence.json", [](nlohmann::json& e) {
    if (e.value("name", "").starts_with("autograd::engine::evaluate_function: "))
      e["args"].erase("Sequence number");
    return true;
  });
  expect_module_layers(import(file).workload);
}

TEST(ProfilerTraceImport, StepSelection) {
  EXPECT_EQ(import(kFixture, 1).step.step, "ProfilerStep#1");
  EXPECT_EQ(error_of([] { import(kFixture, 2); }),
            kFixture +
                ": traceEvents: ProfilerStep#2 is not a complete training step: no forward and backward GPU "
                "work attributed to layers (a training step runs both)");
  EXPECT_EQ(error_of([] { import(kFixture, 5); }),
            kFixture + ": traceEvents: no ProfilerStep#5 (the trace has ProfilerStep#1, ProfilerStep#2)");
  std::string only_second = edited_fixture("only_step2.json", [](nlohmann::json& e) {
    return !e.contains("ts") || !e["ts"].is_number() || e["ts"].get<double>() >= 1000;
  });
  EXPECT_EQ(error_of([&] { import(only_second); }),
            only_second +
                ": traceEvents: no complete training step among ProfilerStep#2: each has no forward and "
                "backward GPU work attributed to layers (a training step runs both)");
}

TEST(ProfilerTraceImport, ParametersFromASideFileWhenTheTraceHasNoShapes) {
  std::string file = edited_fixture("no_shapes.json", [](nlohmann::json& e) {
    if (e.contains("args")) e["args"].erase("Input Dims");
    return true;
  });
  EXPECT_EQ(
      error_of([&] { import(file); }),
      file +
          ": traceEvents: no parameter sizes: no conv / linear / norm / embedding op of the step recorded "
          "\"Input Dims\" (profile with record_shapes=True, or give --params FILE)");

  // model.named_parameters() names: matched in order onto the layers that take weights.
  std::string by_order = write_temp("params_order.json", R"([{"name": "conv.weight", "shape": [16, 3, 3, 3]},
      {"name": "conv.bias", "shape": [16]}, {"name": "fc.weight", "numel": 163840}, {"name": "fc.bias", "shape": [10]}])");
  TraceImport imported = import(file, std::nullopt, by_order);
  EXPECT_EQ(imported.workload.layers[0].params, 448);
  EXPECT_EQ(imported.workload.layers[3].params, 163850);
  EXPECT_EQ(imported.params_from, by_order);

  // Named after the imported layers: matched by name (any layer, also one without weighted ops).
  std::string by_name = write_temp("params_name.json", R"([{"name": "Linear_0.weight", "numel": 7},
      {"name": "ReLU_0.alpha", "shape": [2, 3]}])");
  imported = import(file, std::nullopt, by_name);
  EXPECT_EQ(imported.workload.layers[0].params, 0);
  EXPECT_EQ(imported.workload.layers[1].params, 6);
  EXPECT_EQ(imported.workload.layers[3].params, 7);

  std::string too_many = write_temp("params_many.json", R"([{"name": "a.weight", "numel": 1},
      {"name": "b.weight", "numel": 1}, {"name": "c.weight", "numel": 1}])");
  EXPECT_EQ(
      error_of([&] { import(file, std::nullopt, too_many); }),
      too_many +
          ": 3 layers with parameters (a, ...), but the trace has 2 layers that take weights (Conv2d_0, "
          "Linear_0); name the entries after the imported layers (e.g. \"Conv2d_0.weight\") instead");
  std::string bad_entry = write_temp("params_bad.json", R"([{"name": "conv.weight", "shape": [16, -3]}])");
  EXPECT_EQ(error_of([&] { import(file, std::nullopt, bad_entry); }),
            bad_entry + ": [0].shape: expected sizes in 0..2^40");
  std::string both = write_temp("params_both.json", R"([{"name": "conv.weight", "shape": [1], "numel": 1}])");
  EXPECT_EQ(error_of([&] { import(file, std::nullopt, both); }),
            both + ": [0]: expected one of shape (a list of sizes) or numel");
}

TEST(ProfilerTraceImport, MalformedTracesAreOneLineErrors) {
  std::string not_json = write_temp("not_json.json", "{\"traceEvents\": [");
  EXPECT_EQ(error_of([&] { import(not_json); }).rfind(not_json + ": malformed JSON", 0), 0u);
  std::string no_events = write_temp("no_events.json", R"({"schemaVersion": 1, "deviceProperties": []})");
  EXPECT_EQ(error_of([&] { import(no_events); }),
            no_events +
                ": traceEvents: required key is missing (expected a Chrome trace from torch.profiler's "
                "export_chrome_trace)");
  std::string array_root = write_temp("array_root.json", "[]");
  EXPECT_EQ(
      error_of([&] { import(array_root); }),
      array_root + ": expected a JSON object with traceEvents (a torch.profiler Chrome trace), got array");
  std::string bad_ts = write_temp("bad_ts.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k",
      "pid": 0, "tid": 7, "ts": "soon", "dur": 1}]})");
  EXPECT_EQ(error_of([&] { import(bad_ts); }),
            bad_ts + ": traceEvents[0].ts: expected a number (microseconds)");

  const std::string no_kernels_message =
      ": traceEvents: no GPU kernels (events with cat \"kernel\"): record with "
      "activities=[ProfilerActivity.CPU, "
      "ProfilerActivity.CUDA] on a GPU";
  std::string cpu_only =
      edited_fixture("cpu_only.json", [](nlohmann::json& e) { return e.value("cat", "") != "kernel"; });
  EXPECT_EQ(error_of([&] { import(cpu_only); }), cpu_only + no_kernels_message);
  std::string nccl_only = edited_fixture("nccl_only.json", [](nlohmann::json& e) {
    return e.value("cat", "") != "kernel" || e.value("name", "").starts_with("nccl");
  });
  EXPECT_EQ(error_of([&] { import(nccl_only); }), nccl_only + no_kernels_message);

  std::string two_gpus = edited_fixture("two_gpus.json", [](nlohmann::json& e) {
    if (e.value("cat", "") == "kernel" && e["args"]["correlation"] == 6) e["args"]["device"] = 1;
    return true;
  });
  EXPECT_EQ(
      error_of([&] { import(two_gpus); }),
      two_gpus + ": traceEvents: GPU work on devices 0, 1: expected the trace of one GPU (one rank's trace)");
}

}  // namespace
}  // namespace dasim::workload
