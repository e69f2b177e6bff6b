// One block of 256 threads per sample: the row's maximum, the sum of exponentials (in double, as
// the host loss sums), the sample's loss, then the output gradient. Classes are a few thousand at
// most, so a block per row keeps every reduction inside one block.
#include "cuda/device_loss.hpp"

#include "cuda/cuda_resources.hpp"

#include <cfloat>

namespace dasim::executor {
namespace {

constexpr int kThreads = 256;

// Reduces one value per thread with `op`; `identity` fills the lanes beyond the block's warps.
template <class T, class Op>
__device__ T block_reduce(T value, Op op, T identity, T* shared) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < kThreads / 32 ? shared[lane] : identity;
    for (int offset = 16; offset > 0; offset /= 2)
      value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    if (lane == 0) shared[0] = value;
  }
  __syncthreads();
  const T result = shared[0];
  __syncthreads();  // shared is reused by the next reduction
  return result;
}

struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ double operator()(double a, double b) const { return a + b; }
};

__global__ void softmax_cross_entropy_kernel(const float* __restrict__ logits,
                                             const int32_t* __restrict__ labels, int batch, int classes,
                                             float* __restrict__ delta, float* __restrict__ row_loss) {
  __shared__ float shared_max[kThreads / 32];
  __shared__ double shared_sum[kThreads / 32];
  const int r = blockIdx.x;
  const float* row = logits + static_cast<int64_t>(r) * classes;
  float* d = delta + static_cast<int64_t>(r) * classes;
  float local_max = -FLT_MAX;
  for (int c = threadIdx.x; c < classes; c += kThreads) local_max = fmaxf(local_max, row[c]);
  const float max = block_reduce(local_max, Max{}, -FLT_MAX, shared_max);
  double local_sum = 0.0;
  for (int c = threadIdx.x; c < classes; c += kThreads) local_sum += exp(static_cast<double>(row[c] - max));
  const double sum = block_reduce(local_sum, Sum{}, 0.0, shared_sum);
  const int y = labels[r];
  for (int c = threadIdx.x; c < classes; c += kThreads)
    d[c] = static_cast<float>((exp(static_cast<double>(row[c] - max)) / sum - (c == y ? 1.0 : 0.0)) / batch);
  if (threadIdx.x == 0) row_loss[r] = static_cast<float>(log(sum) - (row[y] - max));
}

}  // namespace

void softmax_cross_entropy_on_device(const float* logits, const int32_t* labels, int batch, int classes,
                                     float* delta, float* row_loss, cudaStream_t stream) {
  softmax_cross_entropy_kernel<<<batch, kThreads, 0, stream>>>(logits, labels, batch, classes, delta,
                                                               row_loss);
  cuda_check(cudaGetLastError(), "softmax cross-entropy kernel launch");
}

}  // namespace dasim::executor
