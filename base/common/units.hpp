// Parsing of SimGrid-style quantities ("25GBps", "100Gbps", "1us", "15.7Tf", "25MiB") and plain
// SI numbers. Pure functions; each throws std::invalid_argument with a message saying what was
// expected, which the JSON reader turns into a `FILE: json.path: ...` InputError.
#pragma once

#include <string>
#include <string_view>

namespace dasim::units {

double parse_bandwidth_Bps(std::string_view text);  // bytes per second; "bps" suffixes are bits
double parse_time_s(std::string_view text);         // seconds
double parse_flops(std::string_view text);          // floating-point operations per second
double parse_bytes(std::string_view text);          // bytes; SI (kB) and binary (KiB) prefixes

// Human-readable forms used in tables (not parsed back).
std::string format_bandwidth(double Bps);
std::string format_time(double seconds);
std::string format_bytes(double bytes);
std::string format_flops(double flops);

}  // namespace dasim::units
