#include "common/units.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace dasim::units {
namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

// Splits "25.5GBps" into 25.5 and "GBps"; rejects text without a leading number.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data())
    throw std::invalid_argument(fmt::format("expected a {} such as {}, got \"{}\"", what,
                                            what == "bandwidth" ? "\"25GBps\"" : "a number with a unit",
                                            text));
  if (!std::isfinite(value)) throw std::invalid_argument(fmt::format("expected a finite {}", what));
  std::string_view rest = text.substr(static_cast<size_t>(end - text.data()));
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  return {value, rest};
}

template <size_t N>
double parse_with(std::string_view text, const std::array<Suffix, N>& suffixes, std::string_view what,
                  std::string_view examples) {
  auto [value, suffix] = split_number(text, what);
  if (suffix.empty()) return value;  // plain SI number in the base unit
  for (const auto& s : suffixes)
    if (s.text == suffix) return value * s.factor;
  throw std::invalid_argument(
      fmt::format("unknown {} unit \"{}\" in \"{}\" (expected e.g. {})", what, suffix, text, examples));
}

constexpr double kKi = 1024.0, kMi = kKi * 1024, kGi = kMi * 1024, kTi = kGi * 1024;

constexpr std::array kBandwidthSuffixes{
    Suffix{"Bps", 1},         Suffix{"kBps", 1e3},      Suffix{"KBps", 1e3},      Suffix{"MBps", 1e6},
    Suffix{"GBps", 1e9},      Suffix{"TBps", 1e12},     Suffix{"KiBps", kKi},     Suffix{"MiBps", kMi},
    Suffix{"GiBps", kGi},     Suffix{"TiBps", kTi},     Suffix{"bps", 1 / 8.0},   Suffix{"kbps", 1e3 / 8},
    Suffix{"Kbps", 1e3 / 8},  Suffix{"Mbps", 1e6 / 8},  Suffix{"Gbps", 1e9 / 8},  Suffix{"Tbps", 1e12 / 8},
    Suffix{"Kibps", kKi / 8}, Suffix{"Mibps", kMi / 8}, Suffix{"Gibps", kGi / 8}, Suffix{"Tibps", kTi / 8}};
constexpr std::array kTimeSuffixes{Suffix{"s", 1},     Suffix{"ms", 1e-3},  Suffix{"us", 1e-6},
                                   Suffix{"ns", 1e-9}, Suffix{"ps", 1e-12}, Suffix{"min", 60},
                                   Suffix{"h", 3600}};
constexpr std::array kFlopsSuffixes{Suffix{"f", 1},        Suffix{"kf", 1e3},      Suffix{"Mf", 1e6},
                                    Suffix{"Gf", 1e9},     Suffix{"Tf", 1e12},     Suffix{"Pf", 1e15},
                                    Suffix{"flops", 1},    Suffix{"kflops", 1e3},  Suffix{"Mflops", 1e6},
                                    Suffix{"Gflops", 1e9}, Suffix{"Tflops", 1e12}, Suffix{"Pflops", 1e15}};
constexpr std::array kBytesSuffixes{
    Suffix{"B", 1},     Suffix{"kB", 1e3},  Suffix{"KB", 1e3},  Suffix{"MB", 1e6},  Suffix{"GB", 1e9},
    Suffix{"TB", 1e12}, Suffix{"KiB", kKi}, Suffix{"MiB", kMi}, Suffix{"GiB", kGi}, Suffix{"TiB", kTi},
    Suffix{"K", kKi},   Suffix{"M", kMi},   Suffix{"G", kGi}};

}  // namespace

double parse_bandwidth_Bps(std::string_view text) {
  return parse_with(text, kBandwidthSuffixes, "bandwidth", "\"25GBps\", \"100Gbps\" or 12.5e9");
}
double parse_time_s(std::string_view text) {
  return parse_with(text, kTimeSuffixes, "time", "\"1us\", \"0.5ms\" or 1e-6");
}
double parse_flops(std::string_view text) {
  return parse_with(text, kFlopsSuffixes, "compute speed", "\"15.7Tf\", \"125Tflops\" or 1.57e13");
}
double parse_bytes(std::string_view text) {
  return parse_with(text, kBytesSuffixes, "size", "\"25MB\", \"1GiB\", \"1G\" or 1048576");
}

std::string format_bandwidth(double Bps) {
  if (std::isinf(Bps)) return "inf";
  return fmt::format("{:.2f} GB/s", Bps / 1e9);
}
std::string format_time(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.3f} us", seconds * 1e6);
  return fmt::format("{:.1f} ns", seconds * 1e9);
}
std::string format_bytes(double bytes) {
  if (bytes >= kGi) return fmt::format("{:.2f} GiB", bytes / kGi);
  if (bytes >= kMi) return fmt::format("{:.2f} MiB", bytes / kMi);
  if (bytes >= kKi) return fmt::format("{:.2f} KiB", bytes / kKi);
  return fmt::format("{:.0f} B", bytes);
}
std::string format_flops(double flops) {
  return fmt::format("{:.2f} TFLOP/s", flops / 1e12);
}

std::string format_count(long long n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace dasim::units
