// The arithmetic of the three schedules (ALGORITHMS.md), as pure functions on flat parameter
// buffers. The MPI trainer and the serial reference both call these, so a difference between them
// can only come from the communication and the timing of the schedule, which is what --verify and
// the tests check; the formulas themselves are checked against hand computations in the unit tests.
#pragma once

#include <cstdint>
#include <vector>

namespace dasim::executor {

// Synchronous SGD update from a gradient summed over `ranks` workers: w <- w - eta * sum / ranks.
// Local steps call it with ranks = 1.
void sgd_apply(std::vector<float>& w, const std::vector<float>& grad_sum, float lr, int ranks);

// Weight averaging of local SGD: w <- sum / ranks, where sum is the allreduced sum of weights.
void average_from_sum(std::vector<float>& w, const std::vector<float>& weight_sum, int ranks);

// DaSGD delayed averaging: w <- snapshot_sum / ranks + (w - snapshot), i.e. the global average of
// the snapshots taken at k0 plus the local progress made since.
void dasgd_merge(std::vector<float>& w, const std::vector<float>& snapshot,
                 const std::vector<float>& snapshot_sum, int ranks);

// FNV-1a over the bytes of the buffer: equal hashes across ranks mean bit-identical weights.
uint64_t weights_hash(const std::vector<float>& w);

}  // namespace dasim::executor
