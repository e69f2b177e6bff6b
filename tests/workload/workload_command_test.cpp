// End-to-end `dasim workload show`: JSON output carries the published totals and the hand-derived
// bucket plan; bad input exits 2 with one line naming the file and JSON path and no stdout.
#include "support/scratch_dir.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

struct Result {
  int status;
  std::string out;
};

Result run(const std::string& args) {
  std::string command = std::string(DASIM_BIN_DIR) + "/dasim " + args;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST(WorkloadCommand, ShowResNet50Json) {
  Result r = run("workload show resnet50 --batch 32 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out)["report"];
  EXPECT_EQ(j["params"], 25557032);
  EXPECT_EQ(j["buckets"].size(), 4u);
  EXPECT_EQ(j["buckets"][3]["first_layer"], "conv1");
  EXPECT_NEAR(j["conv_linear_macs_per_sample"].get<double>() / 4.1e9, 1.0, 0.03);
  EXPECT_DOUBLE_EQ(
      j["training_flops_per_batch"].get<double>(),
      32 * (j["forward_flops_per_sample"].get<double>() + j["backward_flops_per_sample"].get<double>()));
}

TEST(WorkloadCommand, ShapeKeysNameEachLayersCalibrationLookup) {
  // One key per layer (shape_key.hpp's formats): torchvision's conv1 is 3 -> 64 channels on
  // 224 x 224, a 7 x 7 kernel at stride 2 and pad 3, one group; fc a GEMM of 1 row per image,
  // 1000 outputs, 2048 inputs; a BatchNorm has no shape.
  Result r = run("workload show resnet50 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  const auto& keys = j["report"]["shape_keys"];
  ASSERT_EQ(keys.size(), j["layers"].size());
  EXPECT_EQ(j["layers"][0]["name"], "conv1");
  EXPECT_EQ(keys[0], "c3_k64_h224_w224_r7_s7_u2_p3_g1");
  EXPECT_EQ(j["layers"][1]["name"], "bn1");
  EXPECT_TRUE(keys[1].is_null());
  EXPECT_EQ(keys.back(), "m1_n1000_k2048");

  // A layer of several micro-batch shapes has one key per shape: BERT-large's query projection in
  // the eight 64-token length bins is a GEMM of (bin top) rows per sequence, 1024 x 1024.
  const std::string binned = std::string(DASIM_SOURCE_DIR) +
                             "/validation/scaling/workloads/bert-large-pretrain-s512-bin64-tf32.json";
  r = run("workload show " + binned + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  const auto& layers = j["layers"];
  auto query = std::find_if(layers.begin(), layers.end(), [](const nlohmann::json& l) {
    return l["name"] == "encoder.layer.0.attention.query";
  });
  ASSERT_NE(query, layers.end());
  const auto& per_shape = j["report"]["shape_keys"][size_t(query - layers.begin())];
  ASSERT_EQ(per_shape.size(), 8u);
  for (int bin = 0; bin < 8; ++bin)
    EXPECT_EQ(per_shape[size_t(bin)], "m" + std::to_string(64 * (bin + 1)) + "_n1024_k1024") << bin;
  const auto& embeddings = j["report"]["shape_keys"][0];
  ASSERT_EQ(embeddings.size(), 8u);  // no GEMM in any shape
  EXPECT_TRUE(std::all_of(embeddings.begin(), embeddings.end(), [](const auto& k) { return k.is_null(); }));
}

TEST(WorkloadCommand, JsonOutputLoadsAsTheWorkloadItShows) {
  // Shown with options (bf16, a sequence length, a calibration's predicted step), saved, shown
  // again: the same workload, so the same report and step.
  const std::string cal = std::string(DASIM_SOURCE_DIR) + "/platforms/calibration/a100-datasheet.json";
  Result first = run("workload show bert-large --precision bf16 --seq-len 256 --batch 8 --calibration " +
                     cal + " --format json");
  ASSERT_EQ(first.status, 0) << first.out;
  const std::string file =
      (dasim::testing::scratch_dir("dasim_workload_command") / "round_trip.json").string();
  std::ofstream(file) << first.out;
  Result second = run("workload show " + file + " --batch 8 --calibration " + cal + " --format json");
  ASSERT_EQ(second.status, 0) << second.out;
  auto a = nlohmann::json::parse(first.out), b = nlohmann::json::parse(second.out);
  EXPECT_EQ(b["sequence_length"], 256);
  EXPECT_EQ(b["precision"], "bf16");
  a["report"].erase("origin");  // built-in vs the file
  b["report"].erase("origin");
  EXPECT_EQ(a, b);
  std::filesystem::remove(file);
}

TEST(WorkloadCommand, PrecisionAndSequenceOptions) {
  Result r = run("workload show bert-large --precision bf16 --seq-len 512 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sequence_length"], 512);
  EXPECT_DOUBLE_EQ(j["report"]["gradient_bytes"].get<double>(), 335141888.0 * 2);
  Result table = run("workload show vgg16");
  ASSERT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("parameters               138357544"), std::string::npos) << table.out;
}

TEST(WorkloadCommand, BadInputExitsTwoWithoutOutput) {
  std::string file = (dasim::testing::scratch_dir("dasim_workload_command") / "bad.json").string();
  std::ofstream(file) << R"({"name": "x", "precision": "fp32", "layers": [{"name": "a", "kind": "lstm"}]})";
  Result r = run("workload show " + file + " 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(file + ": layers[0].kind: expected one of"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_EQ(run("workload show resnet50 --precision fp8 2>/dev/null").status, 2);
  EXPECT_EQ(run("workload show no-such-model 2>/dev/null").status, 2);
}

TEST(WorkloadCommand, BucketCapTakesASizeLikeTheScenario) {
  // ResNet-50's 102 MB of fp32 gradients: a 50 MiB cap closes 2 buckets where 25 MiB closes 4.
  Result r = run("workload show resnet50 --bucket-cap 50MiB --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["report"]["buckets"].size(), 2u);
  Result mb = run("workload show resnet50 --bucket-cap-mb 50 --format json");  // DDP's knob, in MiB
  ASSERT_EQ(mb.status, 0) << mb.out;
  EXPECT_EQ(mb.out, r.out);
  EXPECT_EQ(run("workload show resnet50 --bucket-cap lots 2>/dev/null").status, 2);
  EXPECT_EQ(run("workload show resnet50 --bucket-cap 0 2>/dev/null").status, 2);
}
