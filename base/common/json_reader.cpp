#include "common/json_reader.hpp"

#include "common/closest_name.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dasim {
namespace {

const std::set<std::string> kAlwaysAllowedKeys{"source", "note", "comment"};

std::string describe(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// Parses `text`, refusing a key that appears twice in one object: nlohmann keeps the last one
// silently, so `"nodes": 64, "nodes": 2` would run 2 nodes. The parser's callback sees every key;
// a stack of open containers gives the JSON path of the duplicate.
nlohmann::json parse_without_duplicate_keys(const std::string& text, const std::string& file) {
  struct Open {
    std::string path;
    bool is_object = true;
    std::set<std::string> keys;
    size_t next_index = 0;  // arrays: index of the next element
    std::string last_key;   // objects: key of the value being read
  };
  std::vector<Open> open;
  auto child_path = [&]() -> std::string {
    if (open.empty()) return "";
    const Open& top = open.back();
    if (top.is_object) return top.path.empty() ? top.last_key : top.path + "." + top.last_key;
    return fmt::format("{}[{}]", top.path, top.next_index);
  };
  auto value_done = [&] {
    if (!open.empty() && !open.back().is_object) ++open.back().next_index;
  };
  using event = nlohmann::json::parse_event_t;
  auto callback = [&](int, event e, nlohmann::json& parsed) {
    switch (e) {
      case event::object_start:
      case event::array_start:
        open.push_back({child_path(), e == event::object_start, {}, 0, {}});
        break;
      case event::object_end:
      case event::array_end:
        open.pop_back();
        value_done();
        break;
      case event::key: {
        auto& top = open.back();
        top.last_key = parsed.get<std::string>();
        if (!top.keys.insert(top.last_key).second)
          throw InputError(file, child_path(), "duplicate key (each key may appear once in an object)");
        break;
      }
      case event::value:
        value_done();
        break;
    }
    return true;
  };
  return nlohmann::json::parse(text, callback);
}

}  // namespace

std::string json_type_name(const nlohmann::json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

nlohmann::json load_json_file(const std::string& file) {
  // An ifstream opens a directory and reads it as empty, which read as "malformed JSON".
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(file, "", "is a directory, expected a JSON file");
  std::ifstream in(file);
  if (!in) throw InputError(file, "", "cannot open file (does it exist and is it readable?)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return parse_without_duplicate_keys(buffer.str(), file);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line 3, column 5: ...";
    // a number too large for a double ("1e999") is an out_of_range.406, also bad input (found by
    // fuzz_platform, fuzz/regressions/).
    std::string what = e.what();
    auto pos = what.find("] ");
    throw InputError(file, "", "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

int64_t json_integer(const nlohmann::json& value, const std::string& file, const std::string& path) {
  // An unsigned value above int64's range would wrap to a negative one and be refused as such.
  if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX))
    throw InputError(file, path,
                     fmt::format("expected an integer below 2^63, got {}", value.get<uint64_t>()));
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<int64_t>(d);
  }
  throw InputError(file, path,
                   fmt::format("expected an integer, got {} {}", json_type_name(value), describe(value)));
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string file, std::string path)
    : value_(value), file_(std::move(file)), path_(std::move(path)) {
  if (!value_.is_object())
    throw InputError(file_, path_.empty() ? "(top level)" : path_,
                     fmt::format("expected a JSON object, got {}", json_type_name(value_)));
}

std::string ObjectReader::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool ObjectReader::has(const std::string& key) const {
  asked_keys_.insert(key);
  return value_.contains(key) && !value_.at(key).is_null();
}

void ObjectReader::fail(const std::string& key, const std::string& what) const {
  throw InputError(file_, key.empty() ? path_ : path_of(key), what);
}

const nlohmann::json& ObjectReader::at(const std::string& key) {
  read_keys_.insert(key);
  if (!has(key)) fail(key, "required key is missing");
  return value_.at(key);
}

const nlohmann::json& ObjectReader::raw(const std::string& key) {
  return at(key);
}

std::string ObjectReader::string(const std::string& key) {
  const auto& v = at(key);
  if (!v.is_string()) fail(key, fmt::format("expected a string, got {} {}", json_type_name(v), describe(v)));
  return v.get<std::string>();
}

double ObjectReader::number(const std::string& key) {
  const auto& v = at(key);
  if (!v.is_number()) fail(key, fmt::format("expected a number, got {} {}", json_type_name(v), describe(v)));
  double d = v.get<double>();
  if (!std::isfinite(d)) fail(key, "expected a finite number");
  return d;
}

int64_t ObjectReader::integer(const std::string& key) {
  return json_integer(at(key), file_, path_of(key));
}

int64_t ObjectReader::positive_integer(const std::string& key) {
  int64_t n = integer(key);
  if (n <= 0) fail(key, fmt::format("expected a positive integer, got {}", n));
  return n;
}

int64_t ObjectReader::integer_in(const std::string& key, int64_t lo, int64_t hi) {
  const int64_t n = integer(key);
  if (n < lo || n > hi) fail(key, fmt::format("expected an integer in {}..{}, got {}", lo, hi, n));
  return n;
}

std::optional<int64_t> ObjectReader::optional_integer_in(const std::string& key, int64_t lo, int64_t hi) {
  read_keys_.insert(key);
  if (!has(key)) return std::nullopt;
  return integer_in(key, lo, hi);
}

bool ObjectReader::boolean(const std::string& key) {
  const auto& v = at(key);
  if (!v.is_boolean())
    fail(key, fmt::format("expected true or false, got {} {}", json_type_name(v), describe(v)));
  return v.get<bool>();
}

double ObjectReader::quantity(const std::string& key, double (*parse)(std::string_view),
                              const QuantityRange& range) {
  const auto& v = at(key);
  double result = 0;
  if (v.is_number()) {
    result = v.get<double>();
  } else if (v.is_string()) {
    try {
      result = parse(v.get<std::string>());
    } catch (const std::invalid_argument& e) {
      fail(key, e.what());
    }
  } else {
    fail(key, fmt::format("expected a number or a unit string, got {} {}", json_type_name(v), describe(v)));
  }
  if (!std::isfinite(result)) fail(key, "expected a finite value");
  if (result < 0 || (range.lo > 0 && result == 0))
    fail(key, fmt::format("expected a value {} 0, got {}", range.lo > 0 ? ">" : ">=", describe(v)));
  if ((range.lo > 0 && result < range.lo) || result > range.hi)
    fail(key, fmt::format("expected {}, got {}", range.shown, describe(v)));
  return result;
}

// What the simulation represents. Bandwidths: SimGrid's solver works to a relative precision of
// 1e-5 on rates and 1e-9 s on times, so a rate below 1 kB/s turns a layer's bytes into times it
// rounds away (1e-6 B/s ran with compute dropping from 109 to 31 ms), and above 1 PB/s nothing
// real exists. Times: no latency, layer or overhead of a training step lasts a day; 1e308 s
// deadlocked the engine. FLOP rates: 1 MFLOP/s (below any processor) to 1 EFLOP/s per GPU.
// Sizes: up to 2^50 bytes, what flows carry exactly (units::kMaxBytes).
double ObjectReader::bandwidth_Bps(const std::string& key) {
  return quantity(key, units::parse_bandwidth_Bps,
                  {1e3, 1e15, "a bandwidth of 1 kB/s to 1 PB/s (1e3..1e15 B/s)"});
}
double ObjectReader::time_s(const std::string& key) {
  return quantity(key, units::parse_time_s, {0, 86400, "a time of 0 to 1 day (86400 s)"});
}
double ObjectReader::flops(const std::string& key) {
  return quantity(key, units::parse_flops,
                  {1e6, 1e18, "a rate of 1 MFLOP/s to 1 EFLOP/s (1e6..1e18 FLOP/s)"});
}
double ObjectReader::bytes(const std::string& key) {
  return quantity(key, units::parse_bytes, {1, units::kMaxBytes, "a size of 1 byte to 2^50 bytes (1 PiB)"});
}

ObjectReader ObjectReader::object(const std::string& key) {
  return ObjectReader(at(key), file_, path_of(key));
}

void ObjectReader::array(const std::string& key,
                         const std::function<void(const nlohmann::json&, const std::string&)>& each) {
  const auto& v = at(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array, got {} {}", json_type_name(v), describe(v)));
  for (size_t i = 0; i < v.size(); ++i) each(v[i], fmt::format("{}[{}]", path_of(key), i));
}

#define DASIM_OPTIONAL(type, name, reader)                         \
  std::optional<type> ObjectReader::name(const std::string& key) { \
    read_keys_.insert(key);                                        \
    if (!has(key)) return std::nullopt;                            \
    return reader(key);                                            \
  }
DASIM_OPTIONAL(std::string, optional_string, string)
DASIM_OPTIONAL(double, optional_number, number)
DASIM_OPTIONAL(int64_t, optional_positive_integer, positive_integer)
DASIM_OPTIONAL(bool, optional_boolean, boolean)
DASIM_OPTIONAL(double, optional_bandwidth_Bps, bandwidth_Bps)
DASIM_OPTIONAL(double, optional_time_s, time_s)
DASIM_OPTIONAL(double, optional_flops, flops)
DASIM_OPTIONAL(double, optional_bytes, bytes)
#undef DASIM_OPTIONAL

std::string ObjectReader::choice(const std::string& key, const std::vector<std::string>& allowed) {
  std::string value = string(key);
  for (const auto& a : allowed)
    if (a == value) return value;
  fail_choice(key, value, allowed);
}

void ObjectReader::fail_choice(const std::string& key, const std::string& value,
                               const std::vector<std::string>& allowed) const {
  std::string what = fmt::format("expected one of {}, got \"{}\"", fmt::join(allowed, ", "), value);
  if (auto near = closest_name(value, allowed)) what += fmt::format("; did you mean \"{}\"?", *near);
  fail(key, what);
}

std::optional<std::string> ObjectReader::optional_choice(const std::string& key,
                                                         const std::vector<std::string>& allowed) {
  read_keys_.insert(key);
  if (!has(key)) return std::nullopt;
  return choice(key, allowed);
}

void ObjectReader::finish() const {
  for (const auto& [key, _] : value_.items()) {
    if (read_keys_.count(key) || kAlwaysAllowedKeys.count(key)) continue;
    // Only keys this loader asked this object for, so the suggestion is valid here (an sgd
    // schedule never suggests DiLoCo's "H"); none the object already holds, since a user who wrote
    // both "bucket_cap" and "bucket_capp" did not mean the one that is there.
    std::vector<std::string> allowed;
    for (const auto* keys :
         std::initializer_list<const std::set<std::string>*>{&read_keys_, &asked_keys_, &kAlwaysAllowedKeys})
      for (const auto& k : *keys)
        if (!value_.contains(k)) allowed.push_back(k);
    if (auto near = closest_name(key, allowed))
      fail(key, fmt::format("unknown key; did you mean \"{}\"?", *near));
    fail(key, "unknown key (check the spelling against docs/file-formats.md)");
  }
}

}  // namespace dasim
