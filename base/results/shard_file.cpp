#include "results/shard_file.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace dasim::results {
namespace {

const nlohmann::json& key(const nlohmann::json& j, const std::string& name, const std::string& file,
                          const std::string& path = "") {
  if (!j.contains(name)) throw InputError(file, path + name, "required key is missing");
  return j.at(name);
}

std::string text(const nlohmann::json& j, const std::string& name, const std::string& file,
                 const std::string& path = "") {
  const auto& v = key(j, name, file, path);
  if (!v.is_string()) throw InputError(file, path + name, "expected a string");
  return v.get<std::string>();
}

int64_t whole(const nlohmann::json& j, const std::string& name, const std::string& file, int64_t lo) {
  const auto& v = key(j, name, file);
  if (!v.is_number_integer() || v.get<int64_t>() < lo)
    throw InputError(file, name, fmt::format("expected an integer >= {}", lo));
  return v.get<int64_t>();
}

// "0, 3, 7" or "0, 3, 7, ... (12 in all)".
std::string listed(const std::vector<size_t>& values) {
  std::vector<size_t> head(values.begin(), values.begin() + std::min<size_t>(values.size(), 8));
  std::string out = fmt::format("{}", fmt::join(head, ", "));
  if (values.size() > head.size()) out += fmt::format(", ... ({} in all)", values.size());
  return out;
}

}  // namespace

nlohmann::ordered_json results_document(const ResultsHeader& h, const std::vector<ResultRow>& rows) {
  nlohmann::ordered_json doc;
  doc["scenario"] = h.scenario;
  doc["scenario_file"] = h.scenario_file;
  doc["description"] = h.description;
  doc["generated_by"] = h.generated_by;
  doc["network_model"] = h.network_model;
  doc["rows"] = to_json(rows);
  return doc;
}

std::string shard_file_name(int shard, int shards) {
  return fmt::format("shard-{}-of-{}.json", shard, shards);
}

nlohmann::ordered_json to_json(const ShardFile& s) {
  nlohmann::ordered_json j;
  j["format"] = kShardFormat;
  j["shard"] = s.shard;
  j["shards"] = s.shards;
  j["configurations"] = s.configurations;
  j["inputs_sha256"] = s.inputs_sha256;
  j["sweep_column"] = s.sweep_column;
  j["results"] = results_document(s.header, {});
  j["configuration_numbers"] = s.indices;
  j["rows"] = to_json(s.rows);
  return j;
}

ShardFile load_shard_file(const std::string& path) {
  const nlohmann::json j = load_json_file(path);
  if (!j.is_object()) throw InputError(path, "(top level)", "expected a JSON object");
  if (!j.contains("format") || j.at("format") != kShardFormat)
    throw InputError(path, "format",
                     fmt::format("expected \"{}\" (a file dasim run --shard writes)", kShardFormat));
  ShardFile s;
  s.file = path;
  s.shards = static_cast<int>(whole(j, "shards", path, 1));
  s.shard = static_cast<int>(whole(j, "shard", path, 0));
  if (s.shard >= s.shards)
    throw InputError(path, "shard", fmt::format("expected 0..{}, got {}", s.shards - 1, s.shard));
  s.configurations = static_cast<size_t>(whole(j, "configurations", path, 1));
  s.inputs_sha256 = text(j, "inputs_sha256", path);
  s.sweep_column = text(j, "sweep_column", path);
  const auto& r = key(j, "results", path);
  if (!r.is_object()) throw InputError(path, "results", "expected an object");
  s.header = {text(r, "scenario", path, "results."), text(r, "scenario_file", path, "results."),
              text(r, "description", path, "results."), text(r, "generated_by", path, "results."),
              text(r, "network_model", path, "results.")};
  const auto& numbers = key(j, "configuration_numbers", path);
  const auto& rows = key(j, "rows", path);
  if (!numbers.is_array()) throw InputError(path, "configuration_numbers", "expected an array");
  if (!rows.is_array() || rows.size() != numbers.size())
    throw InputError(
        path, "rows",
        fmt::format("expected an array of {} rows, one per configuration number", numbers.size()));
  for (size_t k = 0; k < numbers.size(); ++k) {
    const std::string where = fmt::format("configuration_numbers[{}]", k);
    if (!numbers[k].is_number_unsigned() || numbers[k].get<size_t>() >= s.configurations)
      throw InputError(path, where,
                       fmt::format("expected a configuration number 0..{}", s.configurations - 1));
    s.indices.push_back(numbers[k].get<size_t>());
    s.rows.push_back(row_from_json(rows[k], path, fmt::format("rows[{}]", k)));
  }
  return s;
}

MergedResults merge_shards(const std::vector<ShardFile>& shards) {
  if (shards.empty()) throw InputError("expected at least one shard file");
  const ShardFile& first = shards.front();
  std::map<int, const ShardFile*> by_shard;
  std::map<size_t, const ResultRow*> by_configuration;
  for (const auto& s : shards) {
    if (s.inputs_sha256 != first.inputs_sha256 || s.shards != first.shards ||
        s.configurations != first.configurations)
      throw InputError(
          s.file, "inputs_sha256",
          fmt::format(
              "is shard {} of {} of another scenario, other inputs or another split than {} (shard {} of {})",
              s.shard, s.shards, first.file, first.shard, first.shards));
    if (auto [it, fresh] = by_shard.emplace(s.shard, &s); !fresh)
      throw InputError(s.file, "shard",
                       fmt::format("shard {} of {} is also in {}", s.shard, s.shards, it->second->file));
    for (size_t k = 0; k < s.rows.size(); ++k)
      if (!by_configuration.emplace(s.indices[k], &s.rows[k]).second)
        throw InputError(s.file, fmt::format("configuration_numbers[{}]", k),
                         fmt::format("configuration {} is in two shards", s.indices[k]));
  }
  if (by_shard.size() != static_cast<size_t>(first.shards)) {
    std::vector<size_t> missing_shards, missing_configurations;
    for (int i = 0; i < first.shards; ++i)
      if (!by_shard.count(i)) missing_shards.push_back(static_cast<size_t>(i));
    for (size_t c = 0; c < first.configurations; ++c)
      if (!by_configuration.count(c)) missing_configurations.push_back(c);
    throw InputError(
        fmt::format("shard(s) {} of {} missing (configurations {} have no result); "
                    "got {} of {} shard files",
                    listed(missing_shards), first.shards,
                    missing_configurations.empty() ? std::string("none") : listed(missing_configurations),
                    by_shard.size(), first.shards));
  }
  if (by_configuration.size() != first.configurations)
    throw InputError(first.file, "configuration_numbers",
                     fmt::format("the shards hold {} of {} configurations", by_configuration.size(),
                                 first.configurations));
  MergedResults merged{first.header, first.sweep_column, {}};
  for (const auto& [_, row] : by_configuration) merged.rows.push_back(*row);
  return merged;
}

}  // namespace dasim::results
