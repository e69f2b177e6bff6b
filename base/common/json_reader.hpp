// Strict reading of user JSON files. Every value is read through an ObjectReader that knows the
// file and the JSON path it stands at, so each error is one line `FILE: a.b[3].c: what was
// expected`. finish() rejects keys nobody read (typos must not be silently ignored) and suggests
// the nearest key the loader asked this object for (common/closest_name.hpp), as enumerations do
// for a misspelt value. The keys "source", "note" and "comment" are allowed everywhere: presets
// cite where each number came from.
#pragma once

#include "common/enum_names.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dasim {

// Parses FILE as JSON; a missing file or a syntax error becomes an InputError naming the file.
nlohmann::json load_json_file(const std::string& file);

class ObjectReader {
 public:
  // Throws InputError unless `value` is a JSON object.
  ObjectReader(const nlohmann::json& value, std::string file, std::string path);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  std::string path_of(const std::string& key) const;
  // Asking marks `key` as one this object may hold, for finish()'s suggestion only: a key merely
  // asked about and never read is still unknown.
  bool has(const std::string& key) const;

  // Required values. Quantities accept a unit string or a plain SI number and must lie in what
  // the simulator represents (its solver's precision, a day of simulated time; see kQuantityRanges
  // in json_reader.cpp): bandwidths 1 kB/s..1 PB/s, times 0..1 day, FLOP rates 1 MFLOP/s..1
  // EFLOP/s, sizes 1 byte..2^50 bytes.
  std::string string(const std::string& key);
  double number(const std::string& key);
  int64_t integer(const std::string& key);
  int64_t positive_integer(const std::string& key);
  // An integer in [lo, hi]: what the simulator represents (counts that index arrays, sizes that
  // multiply into FLOPs) rather than all of int64.
  int64_t integer_in(const std::string& key, int64_t lo, int64_t hi);
  bool boolean(const std::string& key);
  double bandwidth_Bps(const std::string& key);
  double time_s(const std::string& key);
  double flops(const std::string& key);
  double bytes(const std::string& key);
  ObjectReader object(const std::string& key);
  // Calls `each` for every element of the array at `key` with the element and its JSON path.
  void array(const std::string& key,
             const std::function<void(const nlohmann::json&, const std::string&)>& each);
  const nlohmann::json& raw(const std::string& key);

  // Optional variants: nullopt when the key is absent.
  std::optional<std::string> optional_string(const std::string& key);
  std::optional<double> optional_number(const std::string& key);
  std::optional<int64_t> optional_positive_integer(const std::string& key);
  std::optional<int64_t> optional_integer_in(const std::string& key, int64_t lo, int64_t hi);
  std::optional<bool> optional_boolean(const std::string& key);
  std::optional<double> optional_bandwidth_Bps(const std::string& key);
  std::optional<double> optional_time_s(const std::string& key);
  std::optional<double> optional_flops(const std::string& key);
  std::optional<double> optional_bytes(const std::string& key);

  // Reads a string that must be one of `allowed`.
  std::string choice(const std::string& key, const std::vector<std::string>& allowed);
  std::optional<std::string> optional_choice(const std::string& key, const std::vector<std::string>& allowed);
  // Reads a name of `names` (aliases included) as its value.
  template <class E, size_t N>
  E enumeration(const std::string& key, const EnumNames<E, N>& names) {
    const std::string value = string(key);
    if (auto parsed = names.parse(value)) return *parsed;
    fail_choice(key, value, names.names());  // aliases parse but are never listed or suggested
  }
  template <class E, size_t N>
  std::optional<E> optional_enumeration(const std::string& key, const EnumNames<E, N>& names) {
    read_keys_.insert(key);
    if (!has(key)) return std::nullopt;
    return enumeration(key, names);
  }

  // Throws an InputError for the first key that was never read, naming the nearest key this object
  // was asked for (read, optional or has()) when one is close.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  const nlohmann::json& at(const std::string& key);
  // "expected one of a, b, got "x"", with "; did you mean "a"?" when one of `allowed` is close.
  [[noreturn]] void fail_choice(const std::string& key, const std::string& value,
                                const std::vector<std::string>& allowed) const;
  struct QuantityRange {
    double lo, hi;      // lo == 0: zero allowed
    const char* shown;  // the range as the error states it
  };
  double quantity(const std::string& key, double (*parse)(std::string_view), const QuantityRange& range);

  const nlohmann::json& value_;
  std::string file_;
  std::string path_;
  std::set<std::string> read_keys_;
  // Keys has() was asked about: allowed here (a loader asks before reading an optional section)
  // but not read, so they feed finish()'s suggestion and not its acceptance. Mutable because has()
  // is a const question.
  mutable std::set<std::string> asked_keys_;
};

// Reads an integer array element / value with a path for errors.
int64_t json_integer(const nlohmann::json& value, const std::string& file, const std::string& path);
std::string json_type_name(const nlohmann::json& value);

}  // namespace dasim
