// Synthetic and MNIST IDX data sources of the executor (see dataset.hpp).
#include "dataset.hpp"

#include "common/errors.hpp"
#include "rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <iterator>

namespace dasim::executor {
namespace {

constexpr uint64_t kCentreStream = 0x63656e7472650000ULL;  // distinct streams for one seed
constexpr uint64_t kLabelStream = 0x6c6162656c000000ULL;
constexpr uint64_t kNoiseStream = 0x6e6f697365000000ULL;

std::vector<unsigned char> read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, "", "cannot open IDX file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t big_endian_u32(std::span<const unsigned char> b, size_t offset) {
  return (uint32_t{b[offset]} << 24) | (uint32_t{b[offset + 1]} << 16) | (uint32_t{b[offset + 2]} << 8) |
         uint32_t{b[offset + 3]};
}

}  // namespace

Dataset make_synthetic_shard(const SyntheticSpec& spec, int rank, int ranks) {
  Dataset d;
  d.features = spec.features;
  d.classes = spec.classes;
  d.description =
      fmt::format("synthetic gaussian clusters: {} classes, {} features, {} samples, noise {}, seed {}",
                  spec.classes, spec.features, spec.samples, spec.noise, spec.seed);
  std::vector<float> centres(static_cast<size_t>(spec.classes) * spec.features);
  for (size_t i = 0; i < centres.size(); ++i)
    centres[i] = static_cast<float>(gaussian(spec.seed ^ kCentreStream, i));
  // Features have variance 1 + noise^2; scaling them back to unit variance keeps the He-initialised
  // model's first logits of order 1 whatever the noise.
  const double scale = 1.0 / std::sqrt(1.0 + spec.noise * spec.noise);
  for (int64_t i = rank; i < spec.samples; i += ranks) {
    const int label = static_cast<int>(mix64(spec.seed ^ kLabelStream ^ mix64(i)) % spec.classes);
    d.y.push_back(label);
    for (int f = 0; f < spec.features; ++f) {
      const double noise = gaussian(spec.seed ^ kNoiseStream, static_cast<uint64_t>(i) * spec.features + f);
      const double centre = centres[static_cast<size_t>(label) * spec.features + f];
      d.x.push_back(static_cast<float>(scale * (centre + spec.noise * noise)));
    }
  }
  return d;
}

Dataset load_idx_shard(const std::string& images_file, const std::string& labels_file, int rank, int ranks) {
  const auto images = read_all(images_file);
  const auto labels = read_all(labels_file);
  return parse_idx_shard(images, images_file, labels, labels_file, rank, ranks);
}

Dataset parse_idx_shard(std::span<const unsigned char> images, const std::string& images_file,
                        std::span<const unsigned char> labels, const std::string& labels_file, int rank,
                        int ranks) {
  if (images.size() < 16 || big_endian_u32(images, 0) != 0x803)
    throw InputError(images_file, "", "not an IDX image file (expected magic 0x00000803 and 3 dimensions)");
  if (labels.size() < 8 || big_endian_u32(labels, 0) != 0x801)
    throw InputError(labels_file, "", "not an IDX label file (expected magic 0x00000801 and 1 dimension)");
  const uint64_t count = big_endian_u32(images, 4);
  const uint64_t rows = big_endian_u32(images, 8);
  const uint64_t cols = big_endian_u32(images, 12);
  if (count == 0 || rows == 0 || cols == 0)
    throw InputError(images_file, "", "IDX image file holds no images");
  // Each dimension is below 2^32, so rows * cols cannot wrap; bounding it by int (the model's
  // input width) keeps count * rows * cols below 2^63, so the size check below cannot wrap either
  // (it used to: a header whose product wrapped to the file's size passed it and the loop read
  // past the end).
  if (rows * cols > static_cast<uint64_t>(INT_MAX))
    throw InputError(images_file, "", fmt::format("IDX images of {}x{} pixels are too large", rows, cols));
  if (images.size() != 16 + count * rows * cols)
    throw InputError(
        images_file, "",
        fmt::format("truncated or oversized: header says {} images of {}x{}, expected {} bytes, file has {}",
                    count, rows, cols, 16 + count * rows * cols, images.size()));
  if (big_endian_u32(labels, 4) != count || labels.size() != 8 + count)
    throw InputError(labels_file, "",
                     fmt::format("expected {} labels (as many as images) in {} bytes", count, 8 + count));
  if (static_cast<uint64_t>(ranks) > count)
    throw InputError(images_file, "", fmt::format("{} images cannot be sharded over {} ranks", count, ranks));

  Dataset d;
  d.features = static_cast<int>(rows * cols);
  int max_label = 0;
  for (uint64_t i = 0; i < count; ++i) max_label = std::max<int>(max_label, labels[8 + i]);
  d.classes = max_label + 1;
  d.description = fmt::format("IDX {} + {}: {} images of {}x{}, {} classes", images_file, labels_file, count,
                              rows, cols, d.classes);
  for (uint64_t i = rank; i < count; i += ranks) {
    d.y.push_back(labels[8 + i]);
    const size_t base = 16 + i * rows * cols;
    for (uint64_t p = 0; p < rows * cols; ++p) d.x.push_back(images[base + p] / 255.0f);
  }
  return d;
}

void fill_batch(const Dataset& data, int64_t step, int batch, std::vector<float>& x,
                std::vector<int32_t>& y) {
  x.resize(static_cast<size_t>(batch) * data.features);
  y.resize(batch);
  const int64_t n = data.samples();
  for (int i = 0; i < batch; ++i) {
    const int64_t s = (step * batch + i) % n;
    y[i] = data.y[s];
    std::copy_n(data.x.begin() + s * data.features, data.features,
                x.begin() + static_cast<int64_t>(i) * data.features);
  }
}

}  // namespace dasim::executor
