// Training data of the executor: a rank's shard of a classification task, held as a dense
// row-major float matrix plus labels, read in fixed-size minibatches that wrap around the shard.
//
// Two sources: a seeded synthetic task (Gaussian clusters, one per class: learnable, no download)
// and the MNIST IDX format (images + labels files). Both shard by global sample index: rank r of n
// owns the samples i with i % n == r, so the shards are disjoint and the union is the data set.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dasim::executor {

struct Dataset {
  int features = 0;
  int classes = 0;
  std::vector<float> x;     // samples x features, row-major
  std::vector<int32_t> y;   // samples
  std::string description;  // for the output's configuration block
  int64_t samples() const { return static_cast<int64_t>(y.size()); }
};

struct SyntheticSpec {
  int features = 64;
  int classes = 10;
  int64_t samples = 8192;  // global, over all ranks
  double noise = 2.0;      // standard deviation of the samples around their class centre
  uint64_t seed = 1;
};

// Class centres are N(0, 1) per feature; sample i has label mix(i) % classes and features
// (centre + noise * N(0, 1)) / sqrt(1 + noise^2), i.e. unit variance per feature. Only the shard of `rank`
// out of `ranks` is generated.
Dataset make_synthetic_shard(const SyntheticSpec& spec, int rank, int ranks);

// Reads an IDX images file (magic 0x803, uint8, N x rows x cols) and labels file (magic 0x801,
// uint8, N), scales pixels to [0, 1], and keeps the shard of `rank`. Throws InputError naming the
// file for a missing file, a wrong magic number, a truncated file, mismatched counts or images of
// more than INT_MAX pixels.
Dataset load_idx_shard(const std::string& images_file, const std::string& labels_file, int rank, int ranks);

// The same on the files' contents already in memory (the fuzz target's entry point); the names
// only label the errors.
Dataset parse_idx_shard(std::span<const unsigned char> images, const std::string& images_file,
                        std::span<const unsigned char> labels, const std::string& labels_file, int rank,
                        int ranks);

// Fills `x` (batch x features) and `y` (batch) with minibatch number `step` (0-based) of the shard:
// samples (step * batch + i) mod shard size.
void fill_batch(const Dataset& data, int64_t step, int batch, std::vector<float>& x, std::vector<int32_t>& y);

}  // namespace dasim::executor
