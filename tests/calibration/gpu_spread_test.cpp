// GPU spread files: the quantile function interpolates linearly between the listed quantiles, a job
// of N GPUs takes the quantiles at (i + 0.5) / N (hand-computed below), the ranks' order follows the
// seed and nothing else, the shipped Longhorn file loads, and each class of bad input is an
// InputError naming the file and the JSON path.
#include "calibration/gpu_spread.hpp"

#include "common/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace dasim::calibration;

namespace {

GpuSpread three_point() {  // 0.9 at p = 0, 1.0 at p = 0.5, 1.3 at p = 1
  return gpu_spread_from_json(nlohmann::json::parse(R"({
    "format": "dasim-gpu-spread-1", "gpu": "test", "metric": "test", "gpus_measured": 3,
    "relative_time_quantiles": [0.9, 1.0, 1.3]})"),
                              "spread.json");
}

std::vector<double> sorted_copy(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void expect_spread_error(const std::string& body, const std::string& expected) {
  const auto doc =
      nlohmann::json::parse(R"({"format": "dasim-gpu-spread-1", "gpu": "g", "metric": "m", )" + body + "}");
  try {
    gpu_spread_from_json(doc, "spread.json");
    FAIL() << "accepted: " << body;
  } catch (const dasim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("spread.json: ", 0), 0u) << e.what();
  }
}

}  // namespace

TEST(GpuSpread, QuantilesInterpolateLinearly) {
  const auto s = three_point();
  EXPECT_DOUBLE_EQ(relative_time_at(s, 0), 0.9);
  EXPECT_DOUBLE_EQ(relative_time_at(s, 0.25), 0.95);
  EXPECT_DOUBLE_EQ(relative_time_at(s, 0.5), 1.0);
  EXPECT_DOUBLE_EQ(relative_time_at(s, 0.75), 1.15);
  EXPECT_DOUBLE_EQ(relative_time_at(s, 1), 1.3);
}

TEST(GpuSpread, AJobOfNGpusTakesTheQuantilesAtTheMiddlesOfNEqualSlices) {
  const auto s = three_point();
  EXPECT_EQ(gpu_time_factors(s, 1, 7), std::vector<double>{1.0});  // one GPU: the median GPU
  const auto two = sorted_copy(gpu_time_factors(s, 2, 7));         // p = 0.25, 0.75
  ASSERT_EQ(two.size(), 2u);
  EXPECT_DOUBLE_EQ(two[0], 0.95);
  EXPECT_DOUBLE_EQ(two[1], 1.15);
  const auto four = sorted_copy(gpu_time_factors(s, 4, 7));  // p = 1/8, 3/8, 5/8, 7/8
  ASSERT_EQ(four.size(), 4u);
  EXPECT_DOUBLE_EQ(four[0], 0.925);
  EXPECT_DOUBLE_EQ(four[1], 0.975);
  EXPECT_DOUBLE_EQ(four[2], 1.075);
  EXPECT_DOUBLE_EQ(four[3], 1.225);
}

TEST(GpuSpread, TheSeedChoosesWhichRankIsSlowAndNothingElse) {
  const auto s = three_point();
  const auto a = gpu_time_factors(s, 64, 1);
  EXPECT_EQ(a, gpu_time_factors(s, 64, 1));  // deterministic
  bool some_seed_differs = false;
  for (uint64_t seed = 2; seed < 6; ++seed) {
    const auto b = gpu_time_factors(s, 64, seed);
    EXPECT_EQ(sorted_copy(a), sorted_copy(b));  // the same GPUs
    some_seed_differs = some_seed_differs || a != b;
  }
  EXPECT_TRUE(some_seed_differs);
  EXPECT_NE(a, sorted_copy(a));  // handed out shuffled, not rank 0 fastest
}

TEST(GpuSpread, ShippedLonghornFileLoads) {
  const auto s =
      load_gpu_spread_file(std::string(DASIM_SOURCE_DIR) + "/platforms/gpu-spread/longhorn-v100-sgemm.json");
  EXPECT_EQ(s.gpus_measured, 392);
  ASSERT_EQ(s.relative_time.size(), 101u);
  EXPECT_DOUBLE_EQ(relative_time_at(s, 0.5), 1.0);  // normalised to the median GPU
  EXPECT_LT(s.relative_time.front(), 1.0);
  EXPECT_GT(s.relative_time.back(), 1.1);  // the slowest measured GPU, 20% over the median
}

TEST(GpuSpread, BadFilesNameTheFileAndThePath) {
  expect_spread_error(R"("gpus_measured": 3, "relative_time_quantiles": [1.0])",
                      "relative_time_quantiles: expected at least 2");
  expect_spread_error(R"("gpus_measured": 3, "relative_time_quantiles": [1.0, 0])",
                      "relative_time_quantiles[1]: expected a relative time in (0, 100]");
  expect_spread_error(R"("gpus_measured": 3, "relative_time_quantiles": [1.0, "x"])",
                      "relative_time_quantiles[1]: expected a relative time in (0, 100]");
  expect_spread_error(R"("gpus_measured": 3, "relative_time_quantiles": [1.0, 1e308])",
                      "relative_time_quantiles[1]: expected a relative time in (0, 100]");
  expect_spread_error(
      R"("gpus_measured": 3, "relative_time_quantiles": [5, 5])",
      "relative_time_quantiles: expected times over the median GPU's (1 at the middle quantile), got 5");
  expect_spread_error(
      R"("gpus_measured": 3, "relative_time_quantiles": [1.2, 1.1])",
      "relative_time_quantiles[1]: expected quantiles in nondecreasing order, got 1.1 after 1.2");
  expect_spread_error(R"("gpus_measured": 0, "relative_time_quantiles": [0.9, 1, 2])", "gpus_measured");
  expect_spread_error(R"("gpus_measured": 3, "relative_time_quantiles": [0.9, 1, 2], "quantile": 1)",
                      "quantile: unknown key");
  try {
    gpu_spread_from_json(nlohmann::json::parse(R"({"format": "x"})"), "spread.json");
    FAIL();
  } catch (const dasim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format: expected \"dasim-gpu-spread-1\""), std::string::npos)
        << e.what();
  }
}
