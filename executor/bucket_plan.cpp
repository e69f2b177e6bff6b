// Greedy bucketing of layers in backward order (see bucket_plan.hpp).
#include "bucket_plan.hpp"

namespace dasim::executor {

std::vector<Bucket> plan_buckets(const std::vector<int64_t>& layer_params, double bucket_bytes) {
  std::vector<int64_t> offsets{0};
  for (int64_t p : layer_params) offsets.push_back(offsets.back() + p);
  std::vector<Bucket> buckets;
  const int layers = static_cast<int>(layer_params.size());
  int top = layers - 1;
  for (int l = layers - 1; l >= 0; --l) {
    const double bytes = static_cast<double>(offsets[top + 1] - offsets[l]) * sizeof(float);
    if (bytes >= bucket_bytes || l == 0) {
      buckets.push_back({l, top, offsets[l], offsets[top + 1] - offsets[l]});
      top = l - 1;
    }
  }
  return buckets;
}

}  // namespace dasim::executor
