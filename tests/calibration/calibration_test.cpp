// Calibration files: shipped datasheet files load and cite a source for every number, a full
// file round-trips through save/load, the efficiency curve interpolates log-linearly, and every
// class of bad input is an InputError naming the file and the JSON path.
#include "calibration/calibration.hpp"

#include "common/errors.hpp"
#include "support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace dasim::calibration;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  return dasim::testing::scratch_dir("dasim_calibration_test");
}

nlohmann::json valid() {
  return nlohmann::json::parse(R"({
    "format": "dasim-calibration/1",
    "device": {"name": "NVIDIA H100 80GB HBM3", "kind": "cuda", "driver": "580.1", "toolkit": "13.0"},
    "date": "2026-11-29T16:00:00Z", "command": "dasim calibrate --out x.json", "measured": true,
    "fitted": {"flops": {"fp32": 4.5e13, "bf16": "700Tf"},
               "gemm_efficiency": [[1e6, 0.1], [1e9, 0.5], [1e12, 0.9]],
               "memory_bandwidth_Bps": "3TBps", "launch_overhead_s": "4us"},
    "per_shape": [{"kind": "conv_fwd", "key": "c64_k64_h56_w56_r3_s3_u1_p1_g1", "batch": 32,
                   "precision": "fp32", "time_s": 0.0012}],
    "measurements": [{"name": "gemm_4096", "median_s": 0.002, "samples": [0.002, 0.0021]}],
    "sources": {"flops.fp32": "measured: cuBLAS SGEMM 8192^3"}
  })");
}

std::string error_of(const nlohmann::json& doc) {
  fs::path file = temp_dir() / "bad.json";
  std::ofstream(file) << doc.dump();
  try {
    load_calibration(file.string());
  } catch (const dasim::InputError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind(file.string() + ": ", 0), 0u) << what;
    return what;
  }
  ADD_FAILURE() << "no InputError for " << doc.dump();
  return "";
}

void expect_error(nlohmann::json doc, const std::string& expected) {
  std::string e = error_of(doc);
  EXPECT_NE(e.find(expected), std::string::npos) << e;
}

}  // namespace

TEST(Calibration, ParsesValidFile) {
  Calibration c = parse_calibration(valid(), "x.json");
  EXPECT_EQ(c.device.kind, "cuda");
  EXPECT_TRUE(c.measured);
  EXPECT_DOUBLE_EQ(c.fitted.flops.at("fp32"), 4.5e13);
  EXPECT_DOUBLE_EQ(c.fitted.flops.at("bf16"), 700e12);
  EXPECT_EQ(c.fitted.flops.count("fp16"), 0u);
  EXPECT_DOUBLE_EQ(c.fitted.memory_bandwidth_Bps, 3e12);
  EXPECT_DOUBLE_EQ(c.fitted.launch_overhead_s, 4e-6);
  ASSERT_EQ(c.per_shape.size(), 1u);
  EXPECT_EQ(c.per_shape[0].batch, 32);
  EXPECT_EQ(c.measurements.size(), 1u);
  EXPECT_EQ(c.measurements[0]["samples"].size(), 2u);
}

TEST(Calibration, RoundTrip) {
  Calibration a = parse_calibration(valid(), "x.json");
  std::string path = (temp_dir() / "sub" / "round.json").string();
  save_calibration(a, path);
  Calibration b = load_calibration(path);
  EXPECT_EQ(b.device.name, a.device.name);
  EXPECT_EQ(b.device.driver, "580.1");
  EXPECT_EQ(b.date, a.date);
  EXPECT_EQ(b.command, a.command);
  EXPECT_EQ(b.fitted.flops, a.fitted.flops);
  ASSERT_EQ(b.fitted.gemm_efficiency.size(), 3u);
  EXPECT_DOUBLE_EQ(b.fitted.gemm_efficiency[1].fraction, 0.5);
  EXPECT_DOUBLE_EQ(b.fitted.memory_bandwidth_Bps, a.fitted.memory_bandwidth_Bps);
  EXPECT_EQ(b.per_shape[0].key, a.per_shape[0].key);
  EXPECT_DOUBLE_EQ(b.per_shape[0].time_s, 0.0012);
  EXPECT_EQ(b.measurements, a.measurements);
  EXPECT_EQ(b.sources, a.sources);
  // Writing the loaded file again gives the same bytes (deterministic writer).
  EXPECT_EQ(to_json(a).dump(2), to_json(b).dump(2));
}

TEST(Calibration, ShippedDatasheetFilesLoadAndCiteEveryNumber) {
  // Peaks from the NVIDIA datasheets (dense), in FLOP/s and B/s.
  struct Expected {
    const char* file;
    double fp32, fp16, bandwidth;
  };
  const Expected expected[] = {{"v100", 15.7e12, 125e12, 900e9},
                               {"a100", 19.5e12, 312e12, 2039e9},
                               {"h100", 67e12, 989.4e12, 3.35e12},
                               {"h200", 67e12, 989.4e12, 4.8e12}};
  for (const auto& e : expected) {
    std::string path = std::string(DASIM_SOURCE_DIR) + "/platforms/calibration/" + e.file + "-datasheet.json";
    Calibration c = load_calibration(path);
    EXPECT_FALSE(c.measured) << path;
    ASSERT_TRUE(c.efficiency_assumption.has_value()) << path;
    double eff = *c.efficiency_assumption;
    EXPECT_NEAR(c.fitted.flops.at("fp32"), e.fp32 * eff, 1e3) << path;
    EXPECT_NEAR(c.fitted.flops.at("fp16"), e.fp16 * eff, 1e3) << path;
    EXPECT_NEAR(c.fitted.memory_bandwidth_Bps, e.bandwidth * eff, 1e3) << path;
    for (const auto& [precision, _] : c.fitted.flops)
      EXPECT_TRUE(c.sources.count("flops." + precision)) << path;
    EXPECT_TRUE(c.sources.count("memory_bandwidth_Bps")) << path;
    EXPECT_TRUE(c.sources.count("launch_overhead_s")) << path;
  }
}

TEST(Calibration, EfficiencyIsLogLinearAndClamped) {
  std::vector<EfficiencyPoint> curve{{1e6, 0.1}, {1e9, 0.5}, {1e12, 0.9}};
  EXPECT_DOUBLE_EQ(efficiency_at(curve, 1e3), 0.1);   // clamped below
  EXPECT_DOUBLE_EQ(efficiency_at(curve, 1e15), 0.9);  // clamped above
  EXPECT_DOUBLE_EQ(efficiency_at(curve, 1e9), 0.5);
  // 1e7.5 is half-way between 1e6 and 1e9 in log space: 0.1 + 0.5 * 0.4.
  EXPECT_NEAR(efficiency_at(curve, std::pow(10.0, 7.5)), 0.3, 1e-12);
  // 1e10 is a third of the way from 1e9 to 1e12: 0.5 + 0.4 / 3.
  EXPECT_NEAR(efficiency_at(curve, 1e10), 0.5 + 0.4 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(efficiency_at({}, 1e10), 1.0);
}

TEST(CalibrationErrors, MissingFile) {
  try {
    load_calibration("/nonexistent/cal.json");
    FAIL();
  } catch (const dasim::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/cal.json: ", 0), 0u);
  }
}

// Over 60 lines: one table of malformed files, one case per line, each with its expected message.
TEST(CalibrationErrors, Malformed) {
  fs::path file = temp_dir() / "malformed.json";
  std::ofstream(file) << "{\"format\": ";
  EXPECT_THROW(load_calibration(file.string()), dasim::InputError);
}

TEST(CalibrationErrors, UnknownKeys) {
  auto d = valid();
  d["fitted"]["flops"]["fp64"] = 1e12;
  expect_error(d, "fitted.flops.fp64: unknown key");
  d = valid();
  d["per_shape"][0]["stride"] = 1;
  expect_error(d, "per_shape[0].stride: unknown key");
  d = valid();
  d["fited"] = 1;
  expect_error(d, "fited: unknown key");
}

TEST(CalibrationErrors, NonPositiveFlopsOrBandwidth) {
  auto d = valid();
  d["fitted"]["flops"]["fp32"] = -1;
  expect_error(d, "fitted.flops.fp32: expected a value > 0");
  d = valid();
  d["fitted"]["memory_bandwidth_Bps"] = 0;
  expect_error(d, "fitted.memory_bandwidth_Bps: expected a value > 0");
  d = valid();
  d["fitted"]["flops"].erase("fp32");
  expect_error(d, "fitted.flops.fp32: required key is missing");
}

TEST(CalibrationErrors, EfficiencyCurvesNames) {
  auto d = valid();
  d["fitted"]["efficiency_curves"] = nlohmann::json::parse(R"({"fp8": {"gemm": [[1e6, 0.5]]}})");
  expect_error(d, "fitted.efficiency_curves.fp8: unknown key");
  d = valid();
  d["fitted"]["efficiency_curves"] = nlohmann::json::parse(R"({"fp16": {"conv_5x5.forward": [[1e6, 0.5]]}})");
  expect_error(d, "fitted.efficiency_curves.fp16.conv_5x5.forward: unknown key");
}

TEST(CalibrationErrors, OverheadsAndInterference) {
  auto d = valid();
  d["fitted"]["compute_slowdown_under_collective"] = 1.0;
  expect_error(d, "fitted.compute_slowdown_under_collective: expected a fraction in [0, 1)");
  d["fitted"]["compute_slowdown_under_collective"] = -0.1;
  expect_error(d, "fitted.compute_slowdown_under_collective: expected a fraction in [0, 1)");
  d = valid();
  d["fitted"]["host_overhead_per_kernel_s"] = -1e-6;
  expect_error(d, "fitted.host_overhead_per_kernel_s:");
  d = valid();
  d["fitted"]["input_per_sample_s"] = "-1ms";
  expect_error(d, "fitted.input_per_sample_s:");
}

TEST(CalibrationErrors, EfficiencyOutOfRange) {
  auto d = valid();
  d["fitted"]["gemm_efficiency"][1][1] = 1.2;
  expect_error(d, "fitted.gemm_efficiency[1][1]: expected an efficiency fraction in (0, 1]");
  d = valid();
  d["fitted"]["conv_efficiency"] = nlohmann::json::parse("[[1e6, 0]]");
  expect_error(d, "fitted.conv_efficiency[0][1]: expected an efficiency fraction in (0, 4]");
  // Winograd's multiply reduction is at most 4x (Lavin & Gray): a conv fraction above 4 is an error.
  d = valid();
  d["fitted"]["efficiency_curves"] =
      nlohmann::json::parse(R"({"fp32": {"conv_3x3_s1.forward": [[1e6, 4.5]]}})");
  expect_error(
      d,
      "fitted.efficiency_curves.fp32.conv_3x3_s1.forward[0][1]: expected an efficiency fraction in (0, 4]");
  d = valid();
  d["fitted"]["efficiency_curves"] = nlohmann::json::parse(R"({"fp32": {"gemm": [[1e6, 1.5]]}})");
  expect_error(d, "fitted.efficiency_curves.fp32.gemm[0][1]: expected an efficiency fraction in (0, 1]");
  d = valid();
  d["measured"] = false;
  d["efficiency_assumption"] = 1.5;
  expect_error(d, "efficiency_assumption: expected a fraction in (0, 1]");
}

TEST(CalibrationErrors, UnsortedEfficiencyPoints) {
  auto d = valid();
  d["fitted"]["gemm_efficiency"] = nlohmann::json::parse("[[1e9, 0.5], [1e6, 0.1]]");
  expect_error(d, "fitted.gemm_efficiency[1][0]: points must be sorted");
  d["fitted"]["gemm_efficiency"] = nlohmann::json::parse("[[1e9, 0.5, 3]]");
  expect_error(d, "fitted.gemm_efficiency[0]: expected a pair");
}

TEST(CalibrationErrors, FormatAndDatasheetRules) {
  auto d = valid();
  d["format"] = "dasim-calibration/2";
  expect_error(d, "format: expected \"dasim-calibration/1\"");
  d = valid();
  d["measured"] = false;
  expect_error(d, "efficiency_assumption: required key is missing");
  d = valid();
  d["efficiency_assumption"] = 0.7;
  expect_error(d, "efficiency_assumption: only datasheet files");
  d = valid();
  d["device"]["kind"] = "tpu";
  expect_error(d, "device.kind: expected one of cuda, cpu");
}

TEST(CalibrationErrors, BadPerShapeAndMeasurements) {
  auto d = valid();
  d["per_shape"][0]["time_s"] = 0;
  expect_error(d, "per_shape[0].time_s: expected a time > 0");
  d = valid();
  d["per_shape"][0].erase("time_s");  // a shape with no time
  expect_error(d, "per_shape[0].time_s:");
  d = valid();
  d["per_shape"][0]["kind"] = "conv";
  expect_error(d, "per_shape[0].kind: expected one of");
  d = valid();
  d["per_shape"][0]["batch"] = 0;
  expect_error(d, "per_shape[0].batch: expected a positive integer");
  d = valid();
  d["measurements"] = nlohmann::json::parse("[3]");
  expect_error(d, "measurements[0]: expected a JSON object");
  d = valid();
  d["sources"] = nlohmann::json::parse(R"({"flops.fp32": 3})");
  expect_error(d, "sources.flops.fp32: expected a string");
}
