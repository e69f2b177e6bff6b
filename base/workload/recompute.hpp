// What activation checkpointing recomputes, and where in the backward (the mode and its meaning:
// activation_checkpointing.hpp), and the check that each block's layers are contiguous.
#pragma once

#include "workload/workload.hpp"

#include <vector>

namespace dasim::workload {
// Per layer (forward order), the recomputed forward that runs right before the layer's backward:
// at the last layer of a block, the sum of `forward_layers_s` over the block's layers; 0 elsewhere
// and everywhere when the workload does not checkpoint.
std::vector<double> recompute_before_backward_s(const Workload& workload,
                                                const std::vector<double>& forward_layers_s);

// Index of the first layer of `layers` that names a block already closed by another block
// between them (a block's layers must be contiguous), or -1.
int first_split_block_layer(const std::vector<Layer>& layers);

// True when some layer names a block (what `blocks` needs to recompute anything).
bool has_blocks(const Workload& workload);
// How many blocks the layers name (a block's layers are contiguous, so: how many runs).
int block_count(const Workload& workload);

}  // namespace dasim::workload
