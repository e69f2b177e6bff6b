// DDP-style gradient bucket assignment (see buckets.hpp).
#include "workload/buckets.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

namespace dasim::workload {

std::vector<Bucket> plan_buckets(const Workload& workload, double cap_bytes, double first_cap_bytes) {
  if (!(cap_bytes > 0))
    throw InputError("bucket cap", "", fmt::format("expected a size > 0, got {}", cap_bytes));
  const double element_bytes = bytes_per_element(workload.precision);
  std::vector<Bucket> buckets;
  Bucket open;
  bool has_open = false;
  for (size_t i = workload.layers.size(); i-- > 0;) {
    const Layer& layer = workload.layers[i];
    if (layer.params <= 0) continue;
    if (!has_open) {
      open = Bucket{};
      open.last_layer = i;
      has_open = true;
    }
    open.params += layer.params;
    open.bytes += double(layer.params) * element_bytes;
    open.first_layer = i;
    open.ready_after_layer = i;
    double cap = (buckets.empty() && first_cap_bytes > 0) ? first_cap_bytes : cap_bytes;
    if (open.bytes >= cap) {
      buckets.push_back(open);
      has_open = false;
    }
  }
  if (has_open) buckets.push_back(open);
  return buckets;
}

}  // namespace dasim::workload
