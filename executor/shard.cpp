#include "shard.hpp"

namespace dasim::executor {

Dataset load_shard(const TrainOptions& o, int rank, int ranks) {
  if (!o.mnist_images.empty()) return load_idx_shard(o.mnist_images, o.mnist_labels, rank, ranks);
  return make_synthetic_shard(o.synthetic, rank, ranks);
}

}  // namespace dasim::executor
