// The arithmetic of the three schedules (ALGORITHMS.md), as pure functions on flat parameter
// buffers. The MPI trainer and the serial reference both call these, so a difference between them
// can only come from the communication and the timing of the schedule, which is what --verify and
// the tests check; the formulas themselves are checked against hand computations in the unit tests.
#pragma once

#include "schedules/schedule_spec.hpp"

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

// The DiLoCo family (docs/algorithms.md), on the fragment [offset, offset + count) of flat buffers.
// The outer gradient: delta <- global - w.
void outer_gradient(const std::vector<float>& global, const std::vector<float>& w, std::vector<float>& delta,
                    int64_t offset, int64_t count);
// The outer optimizer step on the averaged outer gradient D = delta_sum / ranks,
//   sgd       global <- global - lr D
//   nesterov  m <- mu m + D; global <- global - lr (D + mu m)   (PyTorch SGD with nesterov=True)
// then the merge w <- alpha w + (1 - alpha) global (alpha = 0: w restarts from global).
void outer_step(std::vector<float>& global, std::vector<float>& momentum, const std::vector<float>& delta_sum,
                std::vector<float>& w, const schedules::ScheduleSpec& schedule, int ranks, int64_t offset,
                int64_t count);

// Eager DiLoCo: the sum outer_step is given, comb <- own + (sum_prev - own_prev) (only own in the
// first round, has_prev false): the worker's fresh outer gradient and the others' of the round before.
void eager_combination(std::vector<float>& comb, const std::vector<float>& own,
                       const std::vector<float>& sum_prev, const std::vector<float>& own_prev, bool has_prev,
                       int64_t offset, int64_t count);

// FNV-1a over the bytes of the buffer: equal hashes across ranks mean bit-identical weights.
uint64_t weights_hash(const std::vector<float>& w);

}  // namespace dasim::executor
