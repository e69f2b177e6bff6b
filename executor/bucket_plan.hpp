// Gradient buckets for synchronous SGD (as PyTorch DDP / Horovod): consecutive layers grouped in
// backward order until a bucket holds at least `bucket_bytes` of gradients. A bucket is ready when
// backward has finished its lowest layer; because parameters are laid out layer after layer, a
// bucket is one contiguous slice of the gradient buffer.
#pragma once

#include <cstdint>
#include <vector>

namespace dasim::executor {

struct Bucket {
  int first_layer = 0;  // lowest layer index: the last one backward completes
  int last_layer = 0;
  int64_t offset = 0;  // in floats, into the flat gradient buffer
  int64_t count = 0;   // floats
};

// `layer_params[l]` is the parameter count of layer l; buckets come out in backward order.
std::vector<Bucket> plan_buckets(const std::vector<int64_t>& layer_params, double bucket_bytes);

}  // namespace dasim::executor
