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

void outer_gradient(const std::vector<float>& global, const std::vector<float>& w, std::vector<float>& delta,
                    int64_t offset, int64_t count) {
  for (int64_t i = offset; i < offset + count; ++i) delta[size_t(i)] = global[size_t(i)] - w[size_t(i)];
}

void outer_step(std::vector<float>& global, std::vector<float>& momentum, const std::vector<float>& delta_sum,
                std::vector<float>& w, const schedules::ScheduleSpec& schedule, int ranks, int64_t offset,
                int64_t count) {
  const float n = static_cast<float>(ranks), lr = static_cast<float>(schedule.outer.lr),
              mu = static_cast<float>(schedule.outer.momentum), alpha = static_cast<float>(schedule.alpha);
  const bool nesterov = schedule.outer.optimizer == schedules::OuterOptimizer::nesterov;
  for (int64_t j = offset; j < offset + count; ++j) {
    const size_t i = size_t(j);
    const float d = delta_sum[i] / n;
    if (nesterov) {
      momentum[i] = mu * momentum[i] + d;
      global[i] -= lr * (d + mu * momentum[i]);
    } else {
      global[i] -= lr * d;
    }
    w[i] = alpha * w[i] + (1 - alpha) * global[i];
  }
}

void eager_combination(std::vector<float>& comb, const std::vector<float>& own,
                       const std::vector<float>& sum_prev, const std::vector<float>& own_prev, bool has_prev,
                       int64_t offset, int64_t count) {
  for (int64_t j = offset; j < offset + count; ++j) {
    const size_t i = size_t(j);
    comb[i] = has_prev ? own[i] + (sum_prev[i] - own_prev[i]) : own[i];
  }
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
