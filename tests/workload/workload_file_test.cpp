// Workload JSON files: a valid file, the built-in names, a round trip, and one test per class of
// bad input (each must be an InputError naming the file and the JSON path).
#include "workload/workload_file.hpp"

#include "common/errors.hpp"
#include "support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace dasim::workload;
namespace fs = std::filesystem;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path path = dasim::testing::scratch_dir("dasim_workload_test") / name;
  std::ofstream(path) << text;
  return path.string();
}

const char* kMlp = R"({
  "name": "mlp-4x1024", "precision": "fp32", "measured_batch": 64,
  "layers": [
    {"name": "fc1", "kind": "linear", "params": 1049600, "forward_flops": 2.1e6, "backward_flops": 4.2e6,
     "activation_bytes": 8192, "forward_time_s": 0.0012, "backward_time_s": 0.0025,
     "gemm": {"rows_per_sample": 1, "n": 1024, "k": 1024}},
    {"name": "relu1", "kind": "elementwise", "forward_flops": 1024, "backward_flops": 1024},
    {"name": "fc2", "kind": "linear", "params": 1049600, "forward_time_s": "1ms", "backward_time_s": 0.002}
  ]})";

// kMlp with `keys` (JSON members and a trailing comma) added after its measured_batch.
std::string mlp_with(const std::string& keys) {
  std::string text = kMlp;
  const std::string key = "\"measured_batch\": 64,";
  return text.replace(text.find(key), key.size(), key + " " + keys);
}

std::string error_of(const std::string& text) {
  std::string file = write_temp("bad.json", text);
  try {
    load_workload(file);
  } catch (const dasim::InputError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind(file + ": ", 0), 0u) << what;  // starts with the file name
    return what;
  }
  ADD_FAILURE() << "no InputError for " << text;
  return "";
}

}  // namespace

TEST(WorkloadFile, LoadsValidFile) {
  Workload w = load_workload(write_temp("mlp.json", kMlp));
  EXPECT_EQ(w.name, "mlp-4x1024");
  ASSERT_EQ(w.layers.size(), 3u);
  EXPECT_EQ(w.total_params(), 2 * 1049600);
  EXPECT_DOUBLE_EQ(w.gradient_bytes(), 2 * 1049600 * 4.0);
  EXPECT_EQ(w.measured_batch, 64);
  EXPECT_EQ(w.layers[0].measured_batch, 64);
  EXPECT_DOUBLE_EQ(*w.layers[0].forward_time_s, 0.0012);
  EXPECT_DOUBLE_EQ(*w.layers[2].forward_time_s, 0.001);
  EXPECT_FALSE(w.layers[1].forward_time_s.has_value());
  EXPECT_EQ(w.layers[0].gemm->n, 1024);
  EXPECT_EQ(w.layers[1].kind, LayerKind::elementwise);
}

TEST(WorkloadFile, PrecisionOverride) {
  WorkloadOptions options;
  options.precision = Precision::bf16;
  Workload w = load_workload(write_temp("mlp.json", kMlp), options);
  EXPECT_DOUBLE_EQ(w.gradient_bytes(), 2 * 1049600 * 2.0);
}

TEST(WorkloadFile, BuiltinNames) {
  EXPECT_EQ(load_workload("resnet50").total_params(), 25'557'032);
  EXPECT_EQ(load_workload("vgg16").name, "vgg16");
  WorkloadOptions options;
  options.sequence_length = 256;
  EXPECT_EQ(load_workload("bert-large", options).sequence_length, 256);
  EXPECT_EQ(load_workload("gpt2-xl").sequence_length, 1024);
  EXPECT_THROW(load_workload("resnet50", options), dasim::InputError);
  EXPECT_THROW(load_workload("resnet51"), dasim::InputError);
}

TEST(WorkloadFile, RoundTrip) {
  Workload a = load_workload("resnet50");
  std::string file = write_temp("resnet.json", to_json(a).dump());
  Workload b = load_workload(file);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  EXPECT_EQ(a.total_params(), b.total_params());
  EXPECT_DOUBLE_EQ(a.forward_flops(), b.forward_flops());
  EXPECT_DOUBLE_EQ(a.backward_flops(), b.backward_flops());
  EXPECT_DOUBLE_EQ(a.activation_bytes(), b.activation_bytes());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].kind, b.layers[i].kind);
    EXPECT_EQ(a.layers[i].conv.has_value(), b.layers[i].conv.has_value());
    if (a.layers[i].conv) {
      EXPECT_EQ(a.layers[i].conv->stride, b.layers[i].conv->stride);
    }
  }
}

TEST(WorkloadFileErrors, MissingFile) {
  EXPECT_THROW(load_workload("/nonexistent/dir/w.json"), dasim::InputError);
}

// Over 60 lines: one table of malformed files, one case per line, each with its expected message.
TEST(WorkloadFileErrors, Malformed) {
  EXPECT_NE(error_of("{\"name\": ").find("malformed JSON"), std::string::npos);
}

TEST(WorkloadFileErrors, UnknownKey) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "linear", "forward_flops": 1,
          "backward_flops": 2, "forwad_time_s": 1}]})");
  EXPECT_NE(e.find("layers[0].forwad_time_s: unknown key"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, UnknownKind) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "lstm", "forward_flops": 1,
          "backward_flops": 2}]})");
  EXPECT_NE(e.find("layers[0].kind: expected one of"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, BadPrecision) {
  std::string e = error_of(R"({"name": "x", "precision": "fp8", "layers": []})");
  EXPECT_NE(e.find("precision: expected one of fp32, tf32, fp16, bf16, amp, amp_bf16"), std::string::npos)
      << e;
}

TEST(WorkloadFileErrors, TimesWithoutMeasuredBatch) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "linear", "forward_time_s": 1,
          "backward_time_s": 2}]})");
  EXPECT_NE(e.find("measured_batch: required key is missing"), std::string::npos) << e;
}

TEST(WorkloadFile, ProfiledUpdateTimeRoundTrips) {
  Workload w = load_workload(write_temp("mlp_update.json", mlp_with("\"update_time_s\": \"1.5ms\",")));
  ASSERT_TRUE(w.update_time_s.has_value());
  EXPECT_DOUBLE_EQ(*w.update_time_s, 0.0015);
  EXPECT_DOUBLE_EQ(to_json(w)["update_time_s"].get<double>(), 0.0015);
  EXPECT_FALSE(load_workload(write_temp("mlp.json", kMlp)).update_time_s.has_value());
}

TEST(WorkloadFile, GradClipRoundTripsAndTheOptionOverridesIt) {
  const std::string text = mlp_with("\"grad_clip\": \"norm\",");
  Workload w = load_workload(write_temp("mlp_clip.json", text));
  EXPECT_EQ(w.grad_clip, GradClip::norm);
  EXPECT_EQ(to_json(w)["grad_clip"].get<std::string>(), "norm");
  WorkloadOptions options;
  options.grad_clip = GradClip::norm_and_scale;
  EXPECT_EQ(load_workload(write_temp("mlp_clip.json", text), options).grad_clip, GradClip::norm_and_scale);
  // The default is left out of the file, so files written before the key existed read back alike.
  Workload plain = load_workload(write_temp("mlp.json", kMlp));
  EXPECT_EQ(plain.grad_clip, GradClip::none);
  EXPECT_FALSE(to_json(plain).contains("grad_clip"));
}

TEST(WorkloadFileErrors, UnknownGradClip) {
  std::string e = error_of(R"({"name": "x", "precision": "fp32", "grad_clip": "value", "layers": []})");
  EXPECT_NE(e.find("grad_clip: expected one of none, norm, norm_and_scale, got \"value\""), std::string::npos)
      << e;
}

TEST(WorkloadFile, ZeroGradRoundTrips) {
  const std::string text = mlp_with("\"zero_grad\": \"zero\",");
  Workload w = load_workload(write_temp("mlp_zero.json", text));
  EXPECT_EQ(w.zero_grad, ZeroGrad::zero);
  EXPECT_EQ(to_json(w)["zero_grad"].get<std::string>(), "zero");
  WorkloadOptions options;
  options.zero_grad = ZeroGrad::set_to_none;
  Workload dropped = load_workload(write_temp("mlp_zero.json", text), options);
  EXPECT_EQ(dropped.zero_grad, ZeroGrad::set_to_none);
  EXPECT_FALSE(to_json(dropped).contains("zero_grad"));  // the default is left out
}

TEST(WorkloadFileErrors, UnknownZeroGrad) {
  std::string e = error_of(R"({"name": "x", "precision": "fp32", "zero_grad": "none", "layers": []})");
  EXPECT_NE(e.find("zero_grad: expected one of set_to_none, zero, fill_only, got \"none\""),
            std::string::npos)
      << e;
}

TEST(WorkloadFileErrors, NegativeUpdateTime) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "update_time_s": -0.001, "layers": [{"name": "a", "kind": "norm",
          "forward_flops": 1, "backward_flops": 2}]})");
  EXPECT_NE(e.find("update_time_s: expected a value >= 0"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, NeitherFlopsNorTimes) {
  std::string e =
      error_of(R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "norm"}]})");
  EXPECT_NE(e.find("layers[0]: a layer needs"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, HalfPair) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "linear", "forward_flops": 1}]})");
  EXPECT_NE(e.find("layers[0].backward_flops: forward_flops and backward_flops"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, NegativeValues) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "linear", "params": -3,
          "forward_flops": 1, "backward_flops": 2}]})");
  EXPECT_NE(e.find("layers[0].params: expected a parameter count >= 0"), std::string::npos) << e;
  e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "linear",
          "forward_flops": -1, "backward_flops": 2}]})");
  EXPECT_NE(e.find("layers[0].forward_flops: expected a number >= 0"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, EmptyLayers) {
  std::string e = error_of(R"({"name": "x", "precision": "fp32", "layers": []})");
  EXPECT_NE(e.find("layers: expected at least one layer"), std::string::npos) << e;
}

TEST(WorkloadFileErrors, BadShape) {
  std::string e = error_of(
      R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "linear", "forward_flops": 1,
          "backward_flops": 2, "gemm": {"rows_per_sample": 0, "n": 1, "k": 1}}]})");
  EXPECT_NE(e.find("layers[0].gemm.rows_per_sample: expected a positive integer"), std::string::npos) << e;
}
