// A built-in transformer trained on sequences of many lengths, read the way a length-binned loader
// reads them (LDDL's BERT phase 2): the sequences fall into bins of `bin_size` tokens, each
// micro-batch is drawn from one bin (with the bin's share of the sequences as its weight, the same
// bin on every rank) and padded to its longest sequence, taken here as the bin's top. The model is
// built at each bin's top length and the builds become one workload whose micro-batches take those
// shapes (workload.hpp `shapes`). docs/workloads.md, "Length bins of a built-in transformer".
//
// The lengths file (`dasim-length-counts`): {"counts": [c1, c2, ...]}, counts[i] sequences of i + 1
// tokens (padding excluded), as validation/scaling/workloads/wikipedia-s512-lengths.json holds
// Krell et al.'s Wikipedia counts; optional "max_sequence_length" (must equal the counts' size).
#pragma once

#include "common/errors.hpp"
#include "workload/workload.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dasim::workload {

struct LengthBins {
  std::string file;  // the counts
  int bin_size = 0;  // tokens per bin; must divide the counts' length
};

// A combination the workload cannot take (an image model, a file, a sequence length besides the
// bins, a bin size that does not divide the counts). Its message says what; the caller says where.
class LengthBinsError : public InputError {
 public:
  // `key`: the part of the bins at fault ("bin_size"), "" for the bins as a whole.
  explicit LengthBinsError(const std::string& what, std::string key = "")
      : InputError(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// At most this many bins may hold sequences: each is a build of the model and a shape of every
// varying layer (workload files have the same bound).
inline constexpr size_t kMaxLengthBins = 1024;

// Counts of sequences by length, read strictly (`FILE: counts[3]: ...`).
std::vector<int64_t> read_length_counts(const std::string& file);

// The bins that hold sequences: each a share of the sequences and its top length, shortest first.
std::vector<SampleShape> bin_shapes(const std::vector<int64_t>& counts, int bin_size);

// One workload from the same model built at each shape's length (`build(length)`): a layer equal in
// every build stays as it is, one that differs carries its figures per shape.
Workload with_length_bins(const std::vector<SampleShape>& shapes, const std::function<Workload(int)>& build);

}  // namespace dasim::workload
