// Tests of the benchmark-log parsers and the alpha-beta fit. Expected values come from the
// generating model (time = alpha + bytes / beta with alpha and beta chosen here), never from the
// code under test.
#include "common/errors.hpp"
#include "linkfit/alpha_beta_fit.hpp"
#include "linkfit/log_parser.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

namespace dasim::linkfit {
namespace {

constexpr double kAlpha = 10e-6;  // 10 us
constexpr double kBeta = 10e9;    // 10 GB/s
double model_time_s(double bytes) {
  return kAlpha + bytes / kBeta;
}

TEST(AlphaBetaFit, RecoversKnownAlphaBetaWithinOnePercentUnderNoise) {
  const double alpha = 4.7e-6, beta = 23.0e9;
  std::mt19937 rng(12345);
  std::normal_distribution<double> noise(0.0, 0.01);  // 1% multiplicative noise per sample
  std::vector<Sample> samples;
  for (double bytes = 8; bytes <= 1 << 30; bytes *= 2)
    for (int rep = 0; rep < 3; ++rep)
      samples.push_back({bytes, (alpha + bytes / beta) * (1.0 + noise(rng)), 0, {}});
  AlphaBetaFit fit = fit_alpha_beta(samples);
  EXPECT_NEAR(fit.alpha_s, alpha, 0.01 * alpha);
  ASSERT_TRUE(fit.beta_Bps.has_value());
  EXPECT_NEAR(*fit.beta_Bps, beta, 0.01 * beta);
  EXPECT_NEAR(fit.rms_relative_residual, 0.01, 0.003);  // the residuals are the injected noise
}

TEST(AlphaBetaFit, ExactDataGivesZeroResiduals) {
  std::vector<Sample> samples;
  for (double bytes : {1e3, 1e5, 1e7}) samples.push_back({bytes, model_time_s(bytes), 0, {}});
  AlphaBetaFit fit = fit_alpha_beta(samples);
  EXPECT_NEAR(fit.alpha_s, kAlpha, 1e-9 * kAlpha);
  EXPECT_NEAR(*fit.beta_Bps, kBeta, 1e-9 * kBeta);
  for (double r : fit.relative_residuals) EXPECT_NEAR(r, 0.0, 1e-9);
}

TEST(AlphaBetaFit, FlatRangeIsPureLatency) {
  std::vector<Sample> samples = {{8, 5e-6, 0, {}}, {16, 5e-6, 0, {}}, {32, 5e-6, 0, {}}};
  AlphaBetaFit fit = fit_alpha_beta(samples);
  EXPECT_DOUBLE_EQ(fit.alpha_s, 5e-6);
  EXPECT_FALSE(fit.beta_Bps.has_value());
}

TEST(AlphaBetaFit, OneSizeIsAnError) {
  std::vector<Sample> samples = {{8, 5e-6, 0, {}}, {8, 6e-6, 0, {}}};
  EXPECT_THROW(fit_alpha_beta(samples, "x.log"), InputError);
}

// A hand-written nccl-tests all_reduce_perf table for 4 ranks: time from the model above,
// algbw = bytes / time, busbw = algbw * 2(n-1)/n = 1.5 algbw.
const char* kNcclTable =
    R"(# nThread 1 nGpus 4 minBytes 8 maxBytes 16777216 step: 128(factor) warmup iters: 5 iters: 20
#
# Using devices
#  Rank  0 Group  0 Pid  1234 on    node1 device  0 [0x07] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
node1:1234:1234 [0] NCCL INFO comm 0x55 rank 0 nranks 4 - Init COMPLETE
           8             2     float     sum      -1  10.0008    0.00    0.00      0  10.0008    0.00    0.00      0
        1024           256     float     sum      -1  10.1024    0.10    0.15      0  10.1024    0.10    0.15      0
     1048576        262144     float     sum      -1 114.8576    9.13   13.69      0 114.8576    9.13   13.69      0
    16777216       4194304     float     sum      -1 1687.7216   9.94   14.91      0 1687.7216   9.94   14.91      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 7.19
)";

TEST(LogParser, NcclTestsTable) {
  ParsedLog log = parse_log_text(kNcclTable, "nccl.log");
  EXPECT_EQ(log.format, "nccl-tests");
  ASSERT_EQ(log.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(log.samples[2].bytes, 1048576);
  EXPECT_NEAR(log.samples[2].time_s, 114.8576e-6, 1e-12);
  EXPECT_EQ(log.samples[0].line, 10);
  EXPECT_NEAR(log.bus_factor, 1.5, 0.01);  // rows with algbw 0.00 are left out
  AlphaBetaFit fit = fit_alpha_beta(log.samples);
  EXPECT_NEAR(fit.alpha_s, kAlpha, 1e-6 * kAlpha);
  EXPECT_NEAR(*fit.beta_Bps, kBeta, 1e-6 * kBeta);
}

TEST(LogParser, NcclTestsTableWithoutRootColumn) {
  const char* text =
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw "
      " error\n"
      "        1024           256     float     sum  10.1024    0.10    0.15  0e+00  10.1024    0.10    0.15 "
      " 0e+00\n"
      "     1048576        262144     float     sum 114.8576    9.13   13.69  0e+00 114.8576    9.13   13.69 "
      " 0e+00\n";
  ParsedLog log = parse_log_text(text, "old.log");
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_NEAR(log.samples[1].time_s, 114.8576e-6, 1e-12);
}

TEST(LogParser, CsvWithSizeAndTimeColumns) {
  const char* text =
      "size,count,type,redop,root,time,algbw,busbw\n"
      "1024,256,float,sum,-1,10.1024,0.10,0.15\n"
      "1048576,262144,float,sum,-1,114.8576,9.13,13.69\n"
      "16777216,4194304,float,sum,-1,1687.7216,9.94,14.91\n";
  ParsedLog log = parse_log_text(text, "nccl.csv");
  EXPECT_EQ(log.format, "csv");
  ASSERT_EQ(log.samples.size(), 3u);
  EXPECT_NEAR(log.bus_factor, 1.5, 0.01);
  AlphaBetaFit fit = fit_alpha_beta(log.samples);
  EXPECT_NEAR(*fit.beta_Bps, kBeta, 1e-6 * kBeta);
}

TEST(LogParser, CsvTimeInSeconds) {
  ParsedLog log = parse_log_text("size_bytes,time_s\n1000,2.5e-6\n2000,3.5e-6\n", "s.csv");
  EXPECT_DOUBLE_EQ(log.samples[1].time_s, 3.5e-6);
}

TEST(LogParser, OsuLatencyTable) {
  const char* text =
      "# OSU MPI Allreduce Latency Test v7.1\n"
      "# Size       Avg Latency(us)\n"
      "1024                  10.10\n"
      "1048576              114.86\n";
  ParsedLog log = parse_log_text(text, "osu.txt");
  EXPECT_EQ(log.format, "osu-latency");
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_NEAR(log.samples[0].time_s, 10.10e-6, 1e-15);
}

TEST(LogParser, OsuBandwidthTableBecomesTimePerMessage) {
  const char* text =
      "# OSU MPI Bandwidth Test v7.1\n"
      "# Size      Bandwidth (MB/s)\n"
      "1000000          2000.00\n";
  ParsedLog log = parse_log_text(text, "bw.txt");
  EXPECT_EQ(log.format, "osu-bandwidth");
  EXPECT_NEAR(log.samples[0].time_s, 1e6 / 2e9, 1e-15);  // 1 MB at 2000 MB/s = 0.5 ms
}

void expect_input_error(const std::string& text, const std::string& expected_prefix) {
  try {
    parse_log_text(text, "bad.log");
    FAIL() << "no error for: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(expected_prefix, 0), 0u) << e.what();
  }
}

TEST(LogParser, UnknownFormatNamesFileAndLine) {
  expect_input_error("\nhello world\n", "bad.log: line 2: unrecognized log format");
}

TEST(LogParser, MalformedRowNamesLine) {
  expect_input_error("# Size  Avg Latency(us)\n8 1.0\n16 fast\n",
                     "bad.log: line 3: expected a positive number");
  expect_input_error("# Size  Avg Latency(us)\n8.5 1.0\n",
                     "bad.log: line 2: expected a positive integer message size");
  expect_input_error("size,time\n8\n", "bad.log: line 2: csv row has 1 columns");
}

TEST(LogParser, HeaderWithoutRowsIsAnError) {
  expect_input_error("# Size  Avg Latency(us)\n", "bad.log: line 1: osu-latency table has no data rows");
  expect_input_error("", "bad.log: line 1: no benchmark table header found");
}

TEST(FitLinksReport, SmallAndLargeRangesAndLinkFigures) {
  ParsedLog log = parse_log_text(kNcclTable, "nccl.log");
  nlohmann::json report = fit_links_report(log, "nccl.log", {});
  ASSERT_TRUE(report["fits"].contains("small"));
  ASSERT_TRUE(report["fits"].contains("large"));
  EXPECT_NEAR(report["link"]["latency"].get<double>(), kAlpha, 1e-6 * kAlpha);
  EXPECT_NEAR(report["link"]["bandwidth"].get<double>(), 1.5 * kBeta, 0.01 * kBeta);  // bus bandwidth
  EXPECT_EQ(report["fits"]["all"]["residuals"].size(), 4u);
}

TEST(FitLinksReport, ByteRangeFilters) {
  ParsedLog log = parse_log_text(kNcclTable, "nccl.log");
  LinkFitOptions options;
  options.min_bytes = 1e6;
  nlohmann::json report = fit_links_report(log, "nccl.log", options);
  EXPECT_EQ(report["fits"]["all"]["points"].get<int>(), 2);
  options.min_bytes = 1e7;
  EXPECT_THROW(fit_links_report(log, "nccl.log", options), InputError);
}

}  // namespace
}  // namespace dasim::linkfit
