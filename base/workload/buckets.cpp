// DDP-style gradient bucket assignment (see buckets.hpp).
#include "workload/buckets.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::workload {

std::vector<Bucket> plan_buckets(const std::vector<int64_t>& layer_params, double element_bytes,
                                 double cap_bytes, double first_cap_bytes) {
  if (!(cap_bytes > 0))
    throw InputError("bucket cap", "", fmt::format("expected a size > 0, got {}", cap_bytes));
  std::vector<int64_t> offsets{0};
  for (int64_t p : layer_params) offsets.push_back(offsets.back() + std::max<int64_t>(p, 0));
  std::vector<Bucket> buckets;
  Bucket open;
  bool has_open = false;
  for (size_t i = layer_params.size(); i-- > 0;) {
    if (layer_params[i] <= 0) continue;
    if (!has_open) {
      open = Bucket{};
      open.last_layer = i;
      has_open = true;
    }
    open.params += layer_params[i];
    open.bytes += double(layer_params[i]) * element_bytes;
    open.first_layer = i;
    open.ready_after_layer = i;
    open.param_offset = offsets[i];
    double cap = (buckets.empty() && first_cap_bytes > 0) ? first_cap_bytes : cap_bytes;
    if (open.bytes >= cap) {
      buckets.push_back(open);
      has_open = false;
    }
  }
  if (has_open) buckets.push_back(open);
  return buckets;
}

std::vector<Bucket> plan_buckets(const Workload& workload, double cap_bytes, double first_cap_bytes) {
  return plan_buckets(workload.layer_params(), workload.gradient_element_bytes(), cap_bytes, first_cap_bytes);
}

}  // namespace dasim::workload
