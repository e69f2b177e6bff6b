// A scenario stands for the product of its platforms x node counts x workloads x sweep values x
// schedules, in a fixed order (the order of the results file).
#include "common/errors.hpp"
#include "scenario/limits.hpp"
#include "scenario/scenario.hpp"
#include "scenario/shards.hpp"
#include "scenario/simulation_jobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace dasim;

namespace {

std::string write_scenario(const std::string& body) {
  const auto dir = std::filesystem::temp_directory_path() / ("dasim-expansion-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "s.json";
  std::ofstream(file) << body;
  return file.string();
}

}  // namespace

TEST(ScenarioExpansion, ProductInPlatformWorkloadSweepScheduleNodeOrder) {
  const std::string platforms = std::string(DASIM_SOURCE_DIR) + "/platforms/";
  const auto file =
      write_scenario(R"({"platforms": [{"file": ")" + platforms + R"(flat-100gbe-64.json", "nodes": [1, 4]},
                    {"file": ")" +
                     platforms + R"(dgx1-v100-edr.json", "nodes": [2]}],
     "workloads": ["resnet50", "vgg16"], "batch_per_gpu": 32,
     "schedules": [{"type": "sgd"}, {"type": "dasgd", "tau": 4, "delay": 1}],
     "sweep": {"parameter": "inter_node_bandwidth", "values": ["10Gbps", "100Gbps"]}})");
  const auto sc = scenario::load_scenario(file);
  const auto configs = scenario::expand(sc);
  // (2 + 1 node counts) x 2 workloads x 2 sweep values x 2 schedules.
  ASSERT_EQ(configs.size(), 3u * 2 * 2 * 2);
  EXPECT_EQ(configs[0].platform, 0u);
  EXPECT_EQ(configs[0].nodes, 1);
  EXPECT_EQ(configs[1].nodes, 4);  // node counts vary fastest
  EXPECT_EQ(configs[2].schedule, 1u);
  EXPECT_DOUBLE_EQ(*configs[0].sweep_value, 10e9 / 8);
  EXPECT_DOUBLE_EQ(*configs[4].sweep_value, 100e9 / 8);  // then sweep values
  EXPECT_EQ(configs[8].workload, 1u);                    // then workloads
  EXPECT_EQ(configs[16].platform, 1u);                   // platforms vary slowest
  EXPECT_EQ(configs[16].nodes, 2);
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST(ScenarioShards, EveryConfigurationInExactlyOneShardTheSameEachTime) {
  const std::string platforms = std::string(DASIM_SOURCE_DIR) + "/platforms/";
  const auto file = write_scenario(R"({"platforms": [{"file": ")" + platforms +
                                   R"(dgx1-v100-edr.json", "nodes": [1, 2, 4, 8, 16]}],
     "workloads": ["resnet50", "vgg16"], "batch_per_gpu": [16, 32],
     "schedules": [{"type": "sgd"}, {"type": "dasgd", "tau": 4, "delay": 1}]})");
  const auto sc = scenario::load_scenario(file);
  const auto configs = scenario::expand(sc);
  ASSERT_EQ(configs.size(), 5u * 2 * 2 * 2);
  const auto shards = scenario::split_into_shards(sc, configs, 3);
  EXPECT_EQ(shards, scenario::split_into_shards(sc, configs, 3));
  std::vector<int> seen(configs.size(), 0);
  double most = 0, least = 1e300, largest = 0;
  for (const auto& shard : shards) {
    EXPECT_TRUE(std::is_sorted(shard.begin(), shard.end()));
    double load = 0;
    for (size_t i : shard) {
      ++seen[i];
      load += scenario::estimated_wall_s(sc, configs[i]);
      largest = std::max(largest, scenario::estimated_wall_s(sc, configs[i]));
    }
    most = std::max(most, load);
    least = std::min(least, load);
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  // Largest first to the least loaded: no shard exceeds another by more than one configuration.
  EXPECT_LE(most - least, largest);
  // More shards than configurations: the rest are empty, none holds two.
  for (const auto& shard : scenario::split_into_shards(sc, configs, 50)) EXPECT_LE(shard.size(), 1u);
  EXPECT_THROW(scenario::parse_shard("4/4"), InputError);
  EXPECT_THROW(scenario::parse_shard("1"), InputError);
  EXPECT_THROW(scenario::parse_shard("-1/4"), InputError);
  EXPECT_EQ(scenario::parse_shard("3/4").index, 3);
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

// A sweep of the host's input rate varies the scenario's host, not the platform: each configuration
// and its baseline get the swept rate, and the platform is the file's.
TEST(ScenarioExpansion, HostInputSweepSetsEachConfigurationsHostAndItsBaselines) {
  const std::string platforms = std::string(DASIM_SOURCE_DIR) + "/platforms/";
  const auto file = write_scenario(R"({"platforms": [{"file": ")" + platforms +
                                   R"(dgx1-v100-edr.json", "nodes": [1, 2]}],
     "workloads": ["resnet50"], "batch_per_gpu": 32, "schedules": [{"type": "sgd"}],
     "sweep": {"parameter": "host_input", "values": [1000, 8000]}})");
  const auto sc = scenario::load_scenario(file);
  const auto configs = scenario::expand(sc);
  ASSERT_EQ(configs.size(), 4u);
  const double nic_Bps = sc.platforms[0].spec.nics.at(0).link.bandwidth_Bps;
  for (size_t i = 0; i < configs.size(); ++i) {
    const double rate = i < 2 ? 1000 : 8000;  // node counts vary fastest
    EXPECT_DOUBLE_EQ(*configs[i].sweep_value, rate);
    for (bool baseline : {false, true}) {
      const auto t = scenario::training_config(sc, configs[i], baseline);
      EXPECT_DOUBLE_EQ(t.host_input_samples_per_s, rate) << i << (baseline ? " baseline" : "");
      EXPECT_DOUBLE_EQ(t.platform.nics.at(0).link.bandwidth_Bps, nic_Bps);
    }
  }
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}
