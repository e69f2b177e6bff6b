// Rounding of the DiLoCo family's outer gradients to the scenario's `bits` (docs/algorithms.md,
// "Compression of the averaged payload"), the arithmetic the MPI trainer and the serial reference
// share: symmetric uniform quantization with one absmax scale per fragment and rank, levels
// L = 2^(bits - 1) - 1 (int8: 127; 4-bit: 7), x <- round(x L / absmax) absmax / L. The trainers
// round each worker's outer gradient once and sum the rounded values exactly, in fp32: the
// per-hop requantization of a quantized ring (INTELLECT-1's) is not reproduced.
#pragma once

#include "top_k.hpp"

#include <cstdint>
#include <vector>

namespace dasim::executor {

// Rounds x[offset, offset + count) in place; bits 32 leaves it unchanged.
void quantize_in_place(std::vector<float>& x, int64_t offset, int64_t count, int bits);

// Rounds the values of `entries` with one scale over them and adds each rounding error back to
// residual[offset + index] (top-k's error feedback keeps it for the next round).
void quantize_entries(std::vector<SparseEntry>& entries, int bits, std::vector<float>& residual,
                      int64_t offset);

}  // namespace dasim::executor
