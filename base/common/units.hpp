// Parsing of SimGrid-style quantities ("25GBps", "100Gbps", "1us", "15.7Tf", "25MiB") and plain
// SI numbers. Pure functions; each throws std::invalid_argument with a message saying what was
// expected, which the JSON reader turns into a `FILE: json.path: ...` InputError.
#pragma once

#include <string>
#include <string_view>

namespace dasim::units {

// The largest size any input may state: 1 PiB. Flows carry whole bytes as 64-bit integers and a
// collective's flows move up to a few times its size (ring phases, LL's doubled bytes), so this
// keeps every flow exact in a double and far from the integer range; no real buffer comes near it.
inline constexpr double kMaxBytes = 1125899906842624.0;  // 2^50

double parse_bandwidth_Bps(std::string_view text);  // bytes per second; "bps" suffixes are bits
double parse_time_s(std::string_view text);         // seconds
double parse_flops(std::string_view text);          // floating-point operations per second
double parse_bytes(std::string_view text);          // bytes; SI (kB) and binary (KiB) prefixes

// Human-readable forms used in tables (not parsed back).
std::string format_bandwidth(double Bps);
std::string format_time(double seconds);
std::string format_bytes(double bytes);
std::string format_flops(double flops);
// "1 GPU", "8 GPUs": a count with its noun in the right number (the nouns used are regular).
std::string format_count(long long n, std::string_view noun);

}  // namespace dasim::units
