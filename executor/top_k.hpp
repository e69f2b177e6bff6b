// Top-k sparsification with error feedback (docs/algorithms.md, "Top-k sparsification"), the
// arithmetic the MPI trainer and the serial reference share: each worker adds its outer gradient to
// a residual it keeps, sends the k entries of largest magnitude as (index, value) pairs and keeps
// the rest for the next round; every worker then adds all workers' pairs, in rank order.
#pragma once

#include <cstdint>
#include <vector>

namespace dasim::executor {

// One entry on the wire: its index inside the fragment and its value (8 bytes: int32 + fp32).
struct SparseEntry {
  int32_t index;
  float value;
};

// k of `count` entries: schedules::top_k_entries, the simulator's count.
int64_t top_k_count(double density, int64_t count);

// On the fragment [offset, offset + count): residual += delta, then the k entries of largest
// |residual| (ties: the lower index; a NaN counts as the largest) go to `sent` in index order and
// are cleared in the residual.
void top_k_select(std::vector<float>& residual, const std::vector<float>& delta, int64_t offset,
                  int64_t count, int64_t k, std::vector<SparseEntry>& sent);

// sum[offset + e.index] += e.value for the n entries.
void add_sparse(std::vector<float>& sum, const SparseEntry* entries, int64_t n, int64_t offset);

}  // namespace dasim::executor
