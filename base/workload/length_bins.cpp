// Length bins of a built-in transformer (see length_bins.hpp).
#include "workload/length_bins.hpp"

#include "common/json_reader.hpp"

#include <fmt/format.h>

namespace dasim::workload {
namespace {

// The most tokens a counts file may give: the built-ins' longest positions (GPT-2 XL's 1024) with
// room to spare; a longer file is refused by the model anyway, this bounds what is read first.
constexpr int64_t kMaxCountedLength = 1 << 16;

bool same_figures(const Layer& a, const Layer& b) {
  return a.forward_flops == b.forward_flops && a.backward_flops == b.backward_flops &&
         a.activation_bytes == b.activation_bytes &&
         a.backward_activation_bytes == b.backward_activation_bytes && a.gemm == b.gemm;
}

}  // namespace

std::vector<int64_t> read_length_counts(const std::string& file) {
  const nlohmann::json root = load_json_file(file);
  ObjectReader r(root, file, "");
  std::vector<int64_t> counts;
  r.array("counts", [&](const nlohmann::json& element, const std::string& path) {
    if (int64_t(counts.size()) >= kMaxCountedLength)
      throw InputError(file, path, fmt::format("expected at most {} lengths", kMaxCountedLength));
    const int64_t count = json_integer(element, file, path);
    if (count < 0) throw InputError(file, path, fmt::format("expected a count >= 0, got {}", count));
    counts.push_back(count);
  });
  if (auto max = r.optional_positive_integer("max_sequence_length"); max && *max != int64_t(counts.size()))
    r.fail("max_sequence_length",
           fmt::format("expected the number of counts ({}: counts[i] is of i + 1 tokens), got {}",
                       counts.size(), *max));
  r.finish();
  int64_t total = 0;
  for (int64_t c : counts) {
    if (c > (int64_t(1) << 50) - total) r.fail("counts", "expected counts summing to below 2^50");
    total += c;
  }
  if (total == 0) r.fail("counts", "expected at least one sequence (every count is 0)");
  return counts;
}

std::vector<SampleShape> bin_shapes(const std::vector<int64_t>& counts, int bin_size) {
  if (bin_size < 1)
    throw LengthBinsError(fmt::format("expected a bin size >= 1, got {}", bin_size), "bin_size");
  if (counts.size() % size_t(bin_size) != 0)
    throw LengthBinsError(
        fmt::format("bin size {} does not divide the counts' {} lengths (the longest bin would "
                    "be cut short)",
                    bin_size, counts.size()),
        "bin_size");
  double total = 0;
  for (int64_t c : counts) total += double(c);
  std::vector<SampleShape> shapes;
  for (size_t top = size_t(bin_size); top <= counts.size(); top += size_t(bin_size)) {
    double in_bin = 0;
    for (size_t i = top - size_t(bin_size); i < top; ++i) in_bin += double(counts[i]);
    if (in_bin > 0) shapes.push_back({in_bin / total, int(top)});
  }
  if (shapes.size() > kMaxLengthBins)
    throw LengthBinsError(fmt::format("{} bins hold sequences, at most {} are timed: give a larger bin size",
                                      shapes.size(), kMaxLengthBins),
                          "bin_size");
  return shapes;
}

Workload with_length_bins(const std::vector<SampleShape>& shapes, const std::function<Workload(int)>& build) {
  std::vector<Workload> builds;
  for (const auto& shape : shapes) builds.push_back(build(shape.sequence_length));
  Workload merged = builds.back();  // the longest: its name, options and sequence length
  if (builds.size() == 1) return merged;
  merged.shapes = shapes;
  for (size_t l = 0; l < merged.layers.size(); ++l) {
    Layer& layer = merged.layers[l];
    bool varies = false;
    for (const auto& b : builds) varies = varies || !same_figures(b.layers.at(l), layer);
    if (!varies) continue;
    for (size_t s = 0; s < builds.size(); ++s) {
      const Layer& one = builds[s].layers[l];
      layer.shapes.push_back({shapes[s].share, one.forward_flops, one.backward_flops, one.activation_bytes,
                              one.backward_activation_bytes, one.gemm});
    }
    layer.gemm.reset();
    set_shape_means(layer);
  }
  return merged;
}

}  // namespace dasim::workload
