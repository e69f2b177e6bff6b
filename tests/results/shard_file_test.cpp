// Shard files and their merge: a row survives the JSON round trip exactly (so a merged results.csv
// is byte-identical to a local run's), and a merge refuses what would give a wrong result set: a
// missing shard, a shard twice, a configuration twice, shards of other inputs.
#include "results/shard_file.hpp"
#include "common/errors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace dasim::results;
using dasim::InputError;

namespace {

ResultRow row(int gpus) {
  ResultRow r;
  r.scenario = "s";
  r.workload = "resnet50";
  r.schedule_detail = "dasgd(tau=4,d=1)";
  r.gpus = gpus;
  r.iter_time_s = 1.0 / 3.0 / gpus;  // a double that 9 digits do not hold
  r.samples_per_s = 96.0 * gpus;
  r.speedup = std::nan("");
  r.extra = {{"inter_node_bandwidth_Bps", "1.25e+10"}};
  return r;
}

ShardFile shard(int index, int count, std::vector<size_t> numbers, std::string inputs = "abc") {
  ShardFile s;
  s.file = "shard-" + std::to_string(index) + ".json";
  s.shard = index;
  s.shards = count;
  s.configurations = 4;
  s.inputs_sha256 = std::move(inputs);
  s.header = {"s", "s.json", "", "dasim 1", "SimGrid CM02"};
  for (size_t n : numbers) {
    s.indices.push_back(n);
    s.rows.push_back(row(static_cast<int>(n) + 1));
  }
  return s;
}

ShardFile round_trip(const ShardFile& s) {
  const auto path =
      std::filesystem::temp_directory_path() / ("dasim-shard-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << to_json(s).dump(2);
  auto loaded = load_shard_file(path.string());
  std::filesystem::remove(path);
  return loaded;
}

}  // namespace

TEST(ShardFile, RowsSurviveTheJsonRoundTripExactly) {
  const auto original = shard(1, 2, {3, 0});
  const auto loaded = round_trip(original);
  EXPECT_EQ(loaded.indices, original.indices);
  EXPECT_EQ(to_csv(loaded.rows), to_csv(original.rows));                  // 9-digit CSV cells
  EXPECT_EQ(to_json(loaded.rows).dump(), to_json(original.rows).dump());  // full-precision JSON
  EXPECT_EQ(loaded.rows[0].iter_time_s, 1.0 / 3.0 / 4);                   // bit for bit
  EXPECT_TRUE(std::isnan(loaded.rows[0].speedup));                        // null is NaN again
  EXPECT_EQ(loaded.rows[0].extra, original.rows[0].extra);
}

TEST(ShardFile, MergeOrdersRowsByConfiguration) {
  const auto merged = merge_shards({shard(1, 2, {1, 3}), shard(0, 2, {0, 2})});
  ASSERT_EQ(merged.rows.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(merged.rows[size_t(i)].gpus, i + 1);
  EXPECT_EQ(merged.header.network_model, "SimGrid CM02");
}

TEST(ShardFile, MergeRefusesAMissingShardNamingItsConfigurations) {
  try {
    merge_shards({shard(0, 3, {0, 2}), shard(2, 3, {1})});
    FAIL() << "merged without shard 1";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "shard(s) 1 of 3 missing (configurations 3 have no result); got 2 of 3 shard files");
  }
}

TEST(ShardFile, MergeRefusesTwiceAndOtherInputs) {
  EXPECT_THROW(merge_shards({shard(0, 2, {0, 1}), shard(0, 2, {2, 3})}), InputError);  // shard twice
  EXPECT_THROW(merge_shards({shard(0, 2, {0, 1}), shard(1, 2, {1, 2, 3})}),
               InputError);  // configuration twice
  EXPECT_THROW(merge_shards({shard(0, 2, {0, 1}), shard(1, 2, {2, 3}, "other")}), InputError);
  EXPECT_THROW(merge_shards({shard(0, 2, {0, 1}), shard(1, 3, {2, 3})}), InputError);  // another split
  EXPECT_THROW(merge_shards({shard(0, 2, {0}), shard(1, 2, {2, 3})}), InputError);     // 1 in no shard
}

TEST(ShardFile, LoadingSaysWhatIsWrong) {
  const auto path =
      std::filesystem::temp_directory_path() / ("dasim-bad-shard-" + std::to_string(::getpid()) + ".json");
  auto expect_error = [&](const nlohmann::ordered_json& j, const std::string& message) {
    std::ofstream(path) << j.dump();
    try {
      load_shard_file(path.string());
      FAIL() << "loaded " << j.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), path.string() + ": " + message);
    }
  };
  auto good = to_json(shard(0, 1, {0, 1, 2, 3}));
  expect_error({{"rows", 1}}, "format: expected \"dasim-shard/4\" (a file dasim run --shard writes)");
  auto j = good;
  j["shard"] = 1;
  expect_error(j, "shard: expected 0..0, got 1");
  j = good;
  j["configuration_numbers"][1] = 4;
  expect_error(j, "configuration_numbers[1]: expected a configuration number 0..3");
  j = good;
  j["rows"].erase(0);
  expect_error(j, "rows: expected an array of 4 rows, one per configuration number");
  j = good;
  j["rows"][2].erase("gpus");
  expect_error(j, "rows[2].gpus: required key is missing");
  j = good;
  j["rows"][0]["iter_time_s"] = "fast";
  expect_error(j, "rows[0].iter_time_s: expected a number or null");
  std::filesystem::remove(path);
}
