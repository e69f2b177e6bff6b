// The result set of a scenario split over several runs (`dasim run --shard I/N`, one per Slurm
// array task) and its merge (`dasim merge`): each shard file holds its configurations' rows with
// their configuration numbers and what identifies the scenario, so the merge can refuse shards of
// different scenarios, a missing or doubled shard, and write results.csv / results.json
// byte-identical to one local run. Format "dasim-shard/4" (docs/file-formats.md).
#pragma once

#include "results/result_row.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dasim::results {

inline constexpr const char* kShardFormat = "dasim-shard/4";

// The keys of results.json before its rows.
struct ResultsHeader {
  std::string scenario;
  std::string scenario_file;
  std::string description;
  std::string generated_by;
  std::string network_model;
};

// results.json: the header's keys, then "rows".
nlohmann::ordered_json results_document(const ResultsHeader& header, const std::vector<ResultRow>& rows);

struct ShardFile {
  std::string file;  // where it was read from (for messages)
  int shard = 0;     // 0-based
  int shards = 1;
  size_t configurations = 0;  // in the whole scenario
  // Of the scenario, platform and calibration files: shards of one scenario and inputs agree.
  std::string inputs_sha256;
  std::string sweep_column;  // the plots' sweep column; empty without a sweep
  ResultsHeader header;
  std::vector<size_t> indices;  // per row, its configuration number
  std::vector<ResultRow> rows;
};

std::string shard_file_name(int shard, int shards);  // "shard-I-of-N.json"
nlohmann::ordered_json to_json(const ShardFile& shard);
// Strict: InputError `FILE: json.path: what was expected`.
ShardFile load_shard_file(const std::string& path);

struct MergedResults {
  ResultsHeader header;
  std::string sweep_column;
  std::vector<ResultRow> rows;  // in configuration order
};

// Every shard of one scenario exactly once, every configuration exactly once; InputError naming
// the file and what is wrong (another scenario, a shard twice, the shards and configurations
// missing) otherwise.
MergedResults merge_shards(const std::vector<ShardFile>& shards);

}  // namespace dasim::results
