// Fuzzes the executor's MNIST IDX loader (executor::parse_idx_shard, what load_idx_shard runs on
// the two files' contents) and the minibatch reader on what it loaded. One input holds both files:
//   byte 0       the shard: ranks = 1 + b % 4, rank = (b / 4) % ranks
//   bytes 1-2    n, the images file's length (little-endian; capped at what is left)
//   then         n bytes of images file, the rest is the labels file
// fuzz/make_idx_seeds.py writes the seeds (fuzz/seeds/idx/) in this layout.
#include "common/errors.hpp"
#include "dataset.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const int ranks = 1 + data[0] % 4;
  const int rank = (data[0] / 4) % ranks;
  const size_t images_size = std::min<size_t>(data[1] | (size_t{data[2]} << 8), size - 3);
  const std::span<const unsigned char> images(data + 3, images_size);
  const std::span<const unsigned char> labels(data + 3 + images_size, size - 3 - images_size);
  try {
    const auto d = dasim::executor::parse_idx_shard(images, "images.idx", labels, "labels.idx", rank, ranks);
    std::vector<float> x;
    std::vector<int32_t> y;
    for (int64_t step = 0; step < 3; ++step) dasim::executor::fill_batch(d, step, 5, x, y);
  } catch (const dasim::InputError&) {
  }
  return 0;
}
