// The up-front limits of `dasim run` (scenario/limits.hpp): the cost estimate reproduces the
// measurements it was fitted to, and each limit accepts the value at the limit and refuses the next.
#include "scenario/limits.hpp"
#include "common/errors.hpp"
#include "platform/platform_loader.hpp"
#include "scenario/scenario.hpp"
#include "support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace dasim::scenario {
namespace {

namespace fs = std::filesystem;

// Writes a one-workload (ResNet-50) scenario and loads it.
Scenario load(const std::string& platform, const std::string& nodes, const std::string& schedule,
              int iterations = 8, int warmup = 4) {
  fs::path file = dasim::testing::scratch_dir("dasim-limits") / "s.json";
  std::ofstream(file) << R"({"platforms": [{"file": ")" << DASIM_SOURCE_DIR << "/platforms/" << platform
                      << R"(.json", "nodes": [)" << nodes << R"(]}], "workloads": ["resnet50"],
    "batch_per_gpu": 32, "schedules": [)"
                      << schedule << R"(], "iterations": )" << iterations << R"(, "warmup": )" << warmup
                      << "}";
  return load_scenario(file.string());
}

void check(const Scenario& sc) {
  check_limits(sc, expand(sc));
}

std::string refusal(const Scenario& sc) {
  try {
    check(sc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string node_list(int first, int last) {
  std::string s;
  for (int n = first; n <= last; ++n) {
    if (!s.empty()) s += ',';
    s += std::to_string(n);
  }
  return s;
}

const std::string kSgd = R"({"type": "sgd"})";

// Measured (docs/hardening.md, "Limits", 2026-12-02, parts in reused actors, tcmalloc): ResNet-50, sgd, 25
// MiB buckets = 4 allreduces, ring, 12 iterations, every node simulated but the first row (folded: 2 nodes of
// 8). The estimate of each is within 2x (issue 19's bound): wall = start-up + 12 iterations.
TEST(Limits, EstimateIsWithinTwiceTheMeasurements) {
  struct Measured {
    int64_t gpus;
    int rings;
    double wall_s, peak_rss_bytes;
  };
  const Measured measured[] = {
      {16, 8, 0.15, 41.2e6},  {256, 8, 1.15, 50.9e6},   {512, 8, 3.49, 85.5e6},   {1024, 8, 8.25, 201.2e6},
      {512, 1, 0.84, 86.7e6}, {1024, 1, 2.18, 157.4e6}, {2048, 1, 6.12, 293.1e6},
  };
  for (const auto& m : measured) {
    const auto e = estimate_cost(m.gpus, 4, m.rings);
    const double wall = e.startup_s + 12 * e.iteration_s;
    EXPECT_LE(wall, 2 * m.wall_s) << m.gpus << " GPUs, " << m.rings << " rings";
    EXPECT_GE(wall, m.wall_s / 2) << m.gpus << " GPUs, " << m.rings << " rings";
    EXPECT_LE(e.memory_bytes, 2 * m.peak_rss_bytes) << m.gpus << " GPUs, " << m.rings << " rings";
    EXPECT_GE(e.memory_bytes, m.peak_rss_bytes / 2) << m.gpus << " GPUs, " << m.rings << " rings";
  }
  // Time grows with GPUs x allreduces: 160 one-layer buckets cost 40x the 4 default ones.
  EXPECT_NEAR(estimate_cost(4096, 160).iteration_s, 40 * estimate_cost(4096, 4).iteration_s, 1e-9);
}

// Measured 2026-12-03 (sim/scenario/limits.cpp): ResNet-50 sgd, 4 buckets, 8 + 4 iterations,
// `dasim run` wall time. Runs with jitter (stddev 0.001) and fsdp runs are simulated whole; each
// estimate is within 2x of its measurement.
TEST(Limits, JitterAndFsdpRunsAreEstimatedWithinTwiceTheMeasurements) {
  struct Measured {
    const char* platform;
    int nodes;
    const char* schedule;
    bool jitter;
    double wall_s;
  };
  const std::string fsdp = R"({"type": "sgd", "data_parallel": "fsdp"})";
  const Measured measured[] = {
      {"flat-100gbe-64", 256, kSgd.c_str(), true, 0.97}, {"flat-100gbe-64", 512, kSgd.c_str(), true, 1.95},
      {"dgx-h100-ndr", 16, kSgd.c_str(), true, 0.95},    {"dgx-h100-ndr", 32, kSgd.c_str(), true, 2.38},
      {"dgx-h100-ndr", 64, kSgd.c_str(), true, 5.70},    {"dgx-h100-ndr", 16, fsdp.c_str(), false, 0.81},
      {"dgx-h100-ndr", 32, fsdp.c_str(), false, 3.10},   {"dgx-h100-ndr", 64, fsdp.c_str(), false, 6.80},
  };
  for (const auto& m : measured) {
    auto sc = load(m.platform, std::to_string(m.nodes), m.schedule);
    if (m.jitter) sc.jitter_stddev = 0.001;
    const auto configs = expand(sc);
    const double estimate = estimated_wall_s(sc, configs[0]);
    EXPECT_LE(estimate, 2 * m.wall_s) << m.platform << " x " << m.nodes << " " << m.schedule;
    EXPECT_GE(estimate, m.wall_s / 2) << m.platform << " x " << m.nodes << " " << m.schedule;
  }
  // A jitter run is charged kJitterCostFactor x the estimate of all its GPUs (jitter folds
  // nothing): 64 DGX H100 nodes, 8 NICs each, 4 buckets, 12 iterations.
  auto jittered = load("dgx-h100-ndr", "64", kSgd);
  jittered.jitter_stddev = 0.001;
  const auto whole = estimate_cost(512, 4, 8);
  EXPECT_NEAR(estimated_wall_s(jittered, expand(jittered)[0]) - whole.startup_s,
              kJitterCostFactor * 12 * whole.iteration_s, 1e-9);
}

TEST(Limits, HumanUnits) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
  EXPECT_EQ(human_bytes(610.0 * 1024 * 1024 * 1024), "610 GiB");
  EXPECT_EQ(human_duration(4.4 * 3600), "4.4 h");
  EXPECT_EQ(human_duration(90), "2 min");
  EXPECT_EQ(human_duration(3 * 86400), "3.0 days");
}

// Rings: the sync SGD runs on these presets fold onto two nodes (engine/symmetric_fold.hpp).
Scenario on_rings(Scenario sc) {
  sc.collective.algorithm = collectives::Algorithm::ring;
  return sc;
}

TEST(Limits, GpusPerConfiguration) {
  // DGX-1: 8 GPUs per node. 16384 nodes = 131072 GPUs is the limit.
  EXPECT_NO_THROW(check(on_rings(load("dgx1-v100-edr", "16384", kSgd))));
  std::string why = refusal(load("dgx1-v100-edr", "1, 16385", kSgd));
  EXPECT_NE(why.find(": platforms[0].nodes[1]: 16385 nodes x 8 GPUs = 131080 GPUs would need ~"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("refusing (use --force to run anyway)"), std::string::npos) << why;
}

TEST(Limits, AFoldedRunIsEstimatedOnTheNodesItSimulates) {
  // 2048 DGX-1 nodes: 16384 GPUs whole would need 35 MB + 16384 x 135 KB = 2.25 GB; folded, two
  // nodes' 16 GPUs, 37 MB. With 1 GB of memory the folded run passes, the whole one is refused.
  Limits one_gb;
  one_gb.memory_bytes = 1e9;
  auto folded = on_rings(load("dgx1-v100-edr", "2048", kSgd));
  const auto configs = expand(folded);
  EXPECT_EQ(simulated_gpus(folded, configs[0]), 16);
  EXPECT_NO_THROW(check_limits(folded, configs, one_gb));
  const auto two_nodes = estimate_cost(16, 4, 4);
  EXPECT_NEAR(estimated_wall_s(folded, configs[0]), two_nodes.startup_s + 12 * two_nodes.iteration_s, 1e-12);
  auto whole = folded;
  whole.collective.fold = false;
  EXPECT_EQ(simulated_gpus(whole, configs[0]), 16384);
  try {
    check_limits(whole, configs, one_gb);
    ADD_FAILURE() << "a 2.8 GB run passed a 1 GB machine";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "16384 GPUs would need ~2.1 GiB, more than the 954 MiB of memory this machine has available"),
        std::string::npos)
        << e.what();
  }
}

TEST(Limits, Iterations) {
  EXPECT_NO_THROW(check(load("flat-100gbe-64", "1", kSgd, 99996, 4)));
  std::string why = refusal(load("flat-100gbe-64", "1", kSgd, 99997, 4));
  EXPECT_NE(why.find(": iterations: 99997 iterations + 4 warmup would take ~"), std::string::npos) << why;
}

TEST(Limits, BucketCapOnManyGpus) {
  const std::string tiny = R"({"type": "sgd", "bucket_cap": "512B"})";
  EXPECT_NO_THROW(check(load("flat-100gbe-64", "1024", tiny)));  // small clusters may study tiny buckets
  EXPECT_NO_THROW(check(load("flat-100gbe-64", "2048", R"({"type": "sgd", "bucket_cap": "1KiB"})")));
  std::string why = refusal(load("flat-100gbe-64", "1024, 1025", tiny));
  EXPECT_NE(why.find(": schedules[0].bucket_cap: a 512 B bucket cap on 1025 GPUs makes"), std::string::npos)
      << why;
  // local SGD allreduces the whole model once: no bucket cap, no bucket limit.
  EXPECT_NO_THROW(check(load("flat-100gbe-64", "2048", R"({"type": "local_sgd", "tau": 4})")));
}

TEST(Limits, Configurations) {
  EXPECT_NO_THROW(check(load("flat-100gbe-64", node_list(1, 10000), kSgd)));
  std::string why = refusal(load("flat-100gbe-64", node_list(1, 10001), kSgd));
  EXPECT_NE(
      why.find(": 10001 configurations (10001 platform node counts x 1 workload x 1 schedule) would take ~"),
      std::string::npos)
      << why;
}

TEST(Limits, NodeCountBeyondIntIsAnInputError) {
  // 2^32 would wrap to 0 nodes if narrowed to int; the loader refuses it.
  try {
    load("flat-100gbe-64", "4294967296", kSgd);
    FAIL() << "accepted 2^32 nodes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("platforms[0].nodes[0]: expected a positive node count below 2^31"),
              std::string::npos)
        << e.what();
  }
}

TEST(Limits, PlatformNodeCountBeyondIntIsReportedAsWritten) {
  // platforms/*.json "nodes": 4294967296 used to wrap to 0 and be reported as "got 0".
  fs::path file = dasim::testing::scratch_dir("dasim-limits") / "platform.json";
  std::ifstream in(std::string(DASIM_SOURCE_DIR) + "/platforms/flat-100gbe-64.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto pos = text.find("\"nodes\": 64");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 11, "\"nodes\": 4294967296");
  std::ofstream(file) << text;
  try {
    platform::load_platform(file.string());
    FAIL() << "accepted 2^32 nodes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(": nodes: expected 1..1048576 nodes, got 4294967296"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace dasim::scenario
