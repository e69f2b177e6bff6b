// Top-k selection with error feedback (see top_k.hpp).
#include "top_k.hpp"

#include "schedules/schedule_spec.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace dasim::executor {

int64_t top_k_count(double density, int64_t count) {
  return static_cast<int64_t>(schedules::top_k_entries(density, static_cast<double>(count)));
}

void top_k_select(std::vector<float>& residual, const std::vector<float>& delta, int64_t offset,
                  int64_t count, int64_t k, std::vector<SparseEntry>& sent) {
  for (int64_t i = offset; i < offset + count; ++i) residual[size_t(i)] += delta[size_t(i)];
  std::vector<int32_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  // A strict order (magnitude, then index) makes the selection the same on every machine; a NaN
  // (a diverging run) is the largest, so the order stays strict.
  auto magnitude = [&](int32_t i) {
    const float x = residual[size_t(offset + i)];
    return std::isnan(x) ? std::numeric_limits<float>::infinity() : std::abs(x);
  };
  auto larger = [&](int32_t a, int32_t b) {
    const float x = magnitude(a), y = magnitude(b);
    return x != y ? x > y : a < b;
  };
  std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), larger);
  order.resize(static_cast<size_t>(k));
  std::sort(order.begin(), order.end());
  sent.clear();
  for (int32_t i : order) {
    float& r = residual[size_t(offset + i)];
    sent.push_back({i, r});
    r = 0;
  }
}

void add_sparse(std::vector<float>& sum, const SparseEntry* entries, int64_t n, int64_t offset) {
  for (int64_t e = 0; e < n; ++e) sum[size_t(offset + entries[e].index)] += entries[e].value;
}

}  // namespace dasim::executor
