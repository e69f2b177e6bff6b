#include "results/result_row.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <type_traits>

namespace dasim::results {
namespace {

// NaN is "not known" (the executor's speedup without a 1-rank baseline): an empty CSV cell and
// JSON null, never a number a reader could take for a measurement.
std::string number(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{:.9g}", v);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

struct CsvCell {
  const ResultRow& row;
  std::string operator()(std::string ResultRow::*f) const { return csv_field(row.*f); }
  std::string operator()(int ResultRow::*f) const { return std::to_string(row.*f); }
  std::string operator()(double ResultRow::*f) const { return number(row.*f); }
};

}  // namespace

std::vector<std::string> result_columns() {
  std::vector<std::string> names;
  for (const auto& c : kResultColumns) names.emplace_back(c.name);
  return names;
}

std::string to_csv(const std::vector<ResultRow>& rows) {
  std::vector<std::string> header = result_columns();
  if (!rows.empty())
    for (const auto& [key, _] : rows.front().extra) header.push_back(key);
  std::string out = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& c : kResultColumns) cells.push_back(std::visit(CsvCell{row}, c.field));
    for (const auto& [_, value] : row.extra) cells.push_back(csv_field(value));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

namespace {
nlohmann::ordered_json extra_value_json(const std::string& value) {
  if (value.empty()) return nullptr;  // not known (e.g. a target loss never reached)
  // A number written as text (the extra columns are CSV cells) is a number in JSON, not "87".
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (end == value.c_str() + value.size() && std::isfinite(number)) {
    if (number == std::floor(number) && std::fabs(number) < 9e15 &&
        value.find_first_of(".eEnN") == std::string::npos)
      return static_cast<int64_t>(number);
    return number;
  }
  return value;
}
}  // namespace

nlohmann::ordered_json to_json(const ResultRow& r) {
  nlohmann::ordered_json j;
  for (const auto& c : kResultColumns)
    std::visit(
        [&](auto field) {
          using Value = std::decay_t<decltype(r.*field)>;
          if constexpr (std::is_same_v<Value, double>) {
            if (std::isnan(r.*field)) {
              j[std::string(c.name)] = nullptr;
              return;
            }
          }
          j[std::string(c.name)] = r.*field;
        },
        c.field);
  for (const auto& [key, value] : r.extra) j[key] = extra_value_json(value);
  return j;
}

nlohmann::ordered_json to_json(const std::vector<ResultRow>& rows) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const auto& r : rows) array.push_back(to_json(r));
  return array;
}

ResultRow row_from_json(const nlohmann::json& j, const std::string& file, const std::string& path) {
  if (!j.is_object()) throw InputError(file, path, "expected a result row (a JSON object)");
  ResultRow r;
  for (const auto& c : kResultColumns) {
    const std::string key(c.name);
    const std::string where = path + "." + key;
    if (!j.contains(key)) throw InputError(file, where, "required key is missing");
    const auto& v = j.at(key);
    std::visit(
        [&](auto field) {
          using Value = std::decay_t<decltype(r.*field)>;
          if constexpr (std::is_same_v<Value, std::string>) {
            if (!v.is_string()) throw InputError(file, where, "expected a string");
            r.*field = v.get<std::string>();
          } else if constexpr (std::is_same_v<Value, int>) {
            if (!v.is_number_integer()) throw InputError(file, where, "expected an integer");
            r.*field = v.get<int>();
          } else {
            if (v.is_null()) {
              r.*field = std::numeric_limits<double>::quiet_NaN();  // written for NaN
            } else {
              if (!v.is_number()) throw InputError(file, where, "expected a number or null");
              r.*field = v.get<double>();
            }
          }
        },
        c.field);
  }
  // The keys after the fixed ones are the extra columns, as to_json() wrote them.
  for (const auto& item : j.items()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda (C++20 allows it).
    const std::string& key = item.key();
    const auto& v = item.value();
    if (std::any_of(kResultColumns.begin(), kResultColumns.end(),
                    [&](const auto& c) { return c.name == key; }))
      continue;
    if (v.is_null())
      r.extra.push_back({key, ""});
    else if (v.is_number_integer())
      r.extra.push_back({key, std::to_string(v.get<int64_t>())});
    else if (v.is_number())
      r.extra.push_back({key, number(v.get<double>())});
    else if (v.is_string())
      r.extra.push_back({key, v.get<std::string>()});
    else
      throw InputError(file, path + "." + key, "expected a number, a string or null");
  }
  return r;
}

}  // namespace dasim::results
