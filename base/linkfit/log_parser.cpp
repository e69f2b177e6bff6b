// Format detection and row parsing of nccl-tests, CSV and OSU-style logs (see log_parser.hpp).
#include "linkfit/log_parser.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

namespace dasim::linkfit {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string tok; in >> tok;) out.push_back(tok);
  return out;
}

std::vector<std::string> split_csv(const std::string& s) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(s);
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  if (!s.empty() && s.back() == ',') out.push_back("");
  return out;
}

std::optional<double> to_number(const std::string& s) {
  double value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw InputError(file, fmt::format("line {}", line), what);
}

bool is_tool_chatter(const std::string& line) {
  // NCCL_DEBUG=INFO and MPI launchers interleave their own lines with the table.
  return line.find("NCCL INFO") != std::string::npos || line.find("NCCL WARN") != std::string::npos;
}

struct Parser {
  const std::string& file;
  ParsedLog log;
  // nccl-tests: column indexes in the data rows.
  int size_col = -1, time_col = -1, algbw_col = -1, busbw_col = -1;
  double time_scale_s = 1e-6;      // CSV: us unless the header says seconds
  double osu_bandwidth_scale = 0;  // OSU bandwidth: bytes/s per printed unit
  double bus_sum = 0;
  int bus_rows = 0;

  bool try_header(const std::string& content, int line_no) {
    std::string text = lower(content);
    if (!text.empty() && text[0] == '#') text = trim(text.substr(1));
    if (text.find(',') != std::string::npos) return try_csv_header(text, line_no);
    std::vector<std::string> tokens = split_ws(text);
    if (tokens.empty()) return false;
    if (tokens[0] == "size" && tokens.size() > 2 && tokens[1] == "count") {
      for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
        if (tokens[i] == "time" && time_col < 0) time_col = i;
        if (tokens[i] == "algbw" && algbw_col < 0) algbw_col = i;
        if (tokens[i] == "busbw" && busbw_col < 0) busbw_col = i;
      }
      if (time_col < 0) fail(file, line_no, "nccl-tests header without a time column");
      size_col = 0;
      log.format = "nccl-tests";
      return true;
    }
    if (tokens[0] == "size" && tokens.size() >= 2) {
      if (text.find("latency") != std::string::npos) {
        log.format = "osu-latency";
        return true;
      }
      if (text.find("bandwidth") != std::string::npos || text.find("mb/s") != std::string::npos) {
        if (text.find("gb/s") != std::string::npos)
          osu_bandwidth_scale = 1e9;
        else if (text.find("mb/s") != std::string::npos)
          osu_bandwidth_scale = 1e6;
        else
          fail(file, line_no, "bandwidth table header must give MB/s or GB/s");
        log.format = "osu-bandwidth";
        return true;
      }
    }
    return false;
  }

  bool try_csv_header(const std::string& text, int line_no) {
    std::vector<std::string> cells = split_csv(text);
    for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
      const std::string& c = cells[i];
      if (size_col < 0 && c.rfind("size", 0) == 0) size_col = i;
      if (time_col < 0 && c.rfind("time", 0) == 0) {
        time_col = i;
        bool seconds = c.ends_with("_s") || c.ends_with("(s)");
        time_scale_s = seconds ? 1.0 : 1e-6;
      }
      if (algbw_col < 0 && c.rfind("algbw", 0) == 0) algbw_col = i;
      if (busbw_col < 0 && c.rfind("busbw", 0) == 0) busbw_col = i;
    }
    if (size_col < 0 || time_col < 0) {
      if (size_col >= 0 || time_col >= 0)
        fail(file, line_no, "CSV header needs both a size and a time column");
      return false;
    }
    log.format = "csv";
    return true;
  }

  void add_row(const std::vector<std::string>& cells, int line_no) {
    std::vector<double> values;
    int needed = std::max({size_col, time_col, 1});
    if (static_cast<int>(cells.size()) <= needed)
      fail(file, line_no,
           fmt::format("{} row has {} columns, expected at least {}", log.format, cells.size(), needed + 1));
    for (const auto& c : cells) values.push_back(to_number(c).value_or(std::nan("")));
    Sample s;
    s.line = line_no;
    s.columns = values;
    if (log.format == "osu-latency" || log.format == "osu-bandwidth") {
      s.bytes = values[0];
      double v = values[1];
      if (!(v > 0)) fail(file, line_no, fmt::format("expected a positive number, got '{}'", cells[1]));
      s.time_s = log.format == "osu-latency" ? v * 1e-6 : s.bytes / (v * osu_bandwidth_scale);
    } else {
      s.bytes = values[size_col];
      double t = values[time_col];
      if (!(t > 0)) fail(file, line_no, fmt::format("expected a positive time, got '{}'", cells[time_col]));
      s.time_s = t * time_scale_s;
      if (algbw_col >= 0 && busbw_col >= 0 && algbw_col < static_cast<int>(values.size()) &&
          busbw_col < static_cast<int>(values.size()) && values[algbw_col] > 0 && values[busbw_col] > 0) {
        bus_sum += values[busbw_col] / values[algbw_col];
        ++bus_rows;
      }
    }
    if (!(s.bytes > 0) || s.bytes != std::floor(s.bytes))
      fail(file, line_no,
           fmt::format("expected a positive integer message size in bytes, got '{}'", cells[0]));
    log.samples.push_back(std::move(s));
  }

  void parse(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    int line_no = 0;
    while (std::getline(in, raw)) {
      ++line_no;
      std::string line = trim(raw);
      if (line.empty() || is_tool_chatter(line)) continue;
      if (log.format.empty() || line[0] == '#') {
        bool header = try_header(line, line_no);
        if (header || line[0] == '#') continue;
        fail(file, line_no,
             "unrecognized log format (expected an nccl-tests table, a CSV with size and time columns, or an "
             "OSU-style '# Size Latency/Bandwidth' table)");
      }
      std::vector<std::string> cells = log.format == "csv" ? split_csv(line) : split_ws(line);
      add_row(cells, line_no);
    }
    if (log.format.empty()) fail(file, std::max(line_no, 1), "no benchmark table header found");
    if (log.samples.empty())
      fail(file, std::max(line_no, 1), fmt::format("{} table has no data rows", log.format));
    if (bus_rows > 0) log.bus_factor = bus_sum / bus_rows;
  }
};

}  // namespace

ParsedLog parse_log_text(const std::string& text, const std::string& file) {
  Parser parser{file, {}};
  parser.parse(text);
  return std::move(parser.log);
}

ParsedLog parse_log_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file, "", "cannot open log file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_log_text(buffer.str(), file);
}

}  // namespace dasim::linkfit
