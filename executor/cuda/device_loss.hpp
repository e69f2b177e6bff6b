// The softmax cross-entropy of the executor's MLP on the GPU: the same loss and output gradient as
// softmax_cross_entropy (mlp.hpp) on the host, so a step's only host round trip is the batch's
// per-sample losses after backward, as a framework's loss.item() is.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace dasim::executor {

// For each of `batch` rows of `logits` (row-major, batch x classes, on the device) with its class
// `labels[r]` (device): row_loss[r] = log(sum_c exp(z_c - max)) - (z_y - max), and
// delta[r][c] = (softmax_c - [c == y]) / batch. Enqueued on `stream`; throws RuntimeFailure when
// the launch fails.
void softmax_cross_entropy_on_device(const float* logits, const int32_t* labels, int batch, int classes,
                                     float* delta, float* row_loss, cudaStream_t stream);

}  // namespace dasim::executor
