// Symmetric uniform quantization of outer gradients (see quantize.hpp).
#include "quantize.hpp"

#include <algorithm>
#include <cmath>

namespace dasim::executor {
namespace {

// The rounding of one value with `levels` steps of absmax / levels each side of zero.
float rounded(float x, float absmax, float levels) {
  return std::round(x * levels / absmax) * absmax / levels;
}

float levels_of(int bits) {
  return static_cast<float>((int64_t{1} << (bits - 1)) - 1);
}

}  // namespace

void quantize_in_place(std::vector<float>& x, int64_t offset, int64_t count, int bits) {
  if (bits >= 32 || count == 0) return;
  float absmax = 0;
  for (int64_t i = offset; i < offset + count; ++i) absmax = std::max(absmax, std::abs(x[size_t(i)]));
  if (!(absmax > 0) || !std::isfinite(absmax)) return;  // all zero, or a diverged run: nothing to scale
  const float levels = levels_of(bits);
  for (int64_t i = offset; i < offset + count; ++i) x[size_t(i)] = rounded(x[size_t(i)], absmax, levels);
}

void quantize_entries(std::vector<SparseEntry>& entries, int bits, std::vector<float>& residual,
                      int64_t offset) {
  if (bits >= 32 || entries.empty()) return;
  float absmax = 0;
  for (const auto& e : entries) absmax = std::max(absmax, std::abs(e.value));
  if (!(absmax > 0) || !std::isfinite(absmax)) return;
  const float levels = levels_of(bits);
  for (auto& e : entries) {
    const float q = rounded(e.value, absmax, levels);
    residual[size_t(offset + e.index)] += e.value - q;
    e.value = q;
  }
}

}  // namespace dasim::executor
