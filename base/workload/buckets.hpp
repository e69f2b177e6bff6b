// Gradient buckets as PyTorch DDP forms them: parameters are taken in reverse layer order (the
// order backward produces their gradients), appended to the open bucket, and the bucket closes
// as soon as its size reaches the cap (so a bucket may exceed the cap by its last layer). A bucket
// is ready for its allreduce when backward has produced the gradient of the last layer put into
// it, i.e. the earliest of its layers in forward order.
//
// Granularity: whole layers. DDP assigns tensors (bias before weight in reverse order), so the
// plans only differ when a bias alone reaches the cap. DDP's smaller first bucket
// (_DEFAULT_FIRST_BUCKET_BYTES, 1 MiB) is available through first_cap_bytes.
#pragma once

#include "workload/workload.hpp"

#include <cstdint>
#include <vector>

namespace dasim::workload {

// DDP's default bucket_cap_mb = 25, in bytes (torch multiplies by 1024 * 1024).
constexpr double kDdpDefaultBucketCapBytes = 25.0 * 1024 * 1024;

struct Bucket {
  double bytes = 0;
  int64_t params = 0;
  size_t first_layer = 0;  // lowest layer index in the bucket (forward order)
  size_t last_layer = 0;   // highest layer index in the bucket
  // Index of the layer whose backward completes the bucket (== first_layer).
  size_t ready_after_layer = 0;
  // Parameters of the layers before first_layer: with the layers' parameters laid out one after
  // the other in one flat buffer (as the executor's models do), the bucket is the contiguous slice
  // [param_offset, param_offset + params).
  int64_t param_offset = 0;
};

// The one bucket planner of dasim (simulator and executor): buckets in the order they become
// ready (the first one holds the last layers of the model) for layers with `layer_params[i]`
// parameters of `element_bytes` each. Layers without parameters belong to no bucket. cap_bytes
// must be > 0; first_cap_bytes <= 0 means "same as cap_bytes".
std::vector<Bucket> plan_buckets(const std::vector<int64_t>& layer_params, double element_bytes,
                                 double cap_bytes, double first_cap_bytes = 0);
// The workload's layers at the gradient element size its allreduce sends.
std::vector<Bucket> plan_buckets(const Workload& workload, double cap_bytes, double first_cap_bytes = 0);

}  // namespace dasim::workload
