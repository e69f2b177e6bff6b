// Schedule arithmetic on flat parameter buffers (see update_rules.hpp).
#include "update_rules.hpp"

#include <cstring>

namespace dasim::executor {

void sgd_apply(std::vector<float>& w, const std::vector<float>& grad_sum, float lr, int ranks) {
  const float step = lr / static_cast<float>(ranks);
  for (size_t i = 0; i < w.size(); ++i) w[i] -= step * grad_sum[i];
}

void average_from_sum(std::vector<float>& w, const std::vector<float>& weight_sum, int ranks) {
  const float n = static_cast<float>(ranks);
  for (size_t i = 0; i < w.size(); ++i) w[i] = weight_sum[i] / n;
}

void dasgd_merge(std::vector<float>& w, const std::vector<float>& snapshot,
                 const std::vector<float>& snapshot_sum, int ranks) {
  const float n = static_cast<float>(ranks);
  for (size_t i = 0; i < w.size(); ++i) w[i] = snapshot_sum[i] / n + (w[i] - snapshot[i]);
}

uint64_t weights_hash(const std::vector<float>& w) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(w.data());
  for (size_t i = 0; i < w.size() * sizeof(float); ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace dasim::executor
