// Counter-based random numbers for the executor: every value is a pure function of (seed, index),
// so a data sample or an initial weight is the same on every rank, in every run and in the serial
// reference, whatever the number of ranks (std::normal_distribution is implementation-defined, so
// it is not used).
#pragma once

#include <cmath>
#include <cstdint>

namespace dasim::executor {

// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in (0, 1], from the top 53 bits.
inline double uniform_open0(uint64_t seed, uint64_t index) {
  return (static_cast<double>(mix64(seed ^ mix64(index)) >> 11) + 1.0) * 0x1.0p-53;
}

// Standard normal by Box-Muller on two independent counter draws.
inline double gaussian(uint64_t seed, uint64_t index) {
  const double u1 = uniform_open0(seed, 2 * index);
  const double u2 = uniform_open0(seed, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace dasim::executor
