// MLP forward/backward on cuBLAS + cuDNN (see gpu_mlp.hpp). Row-major host matrices are used as
// column-major device matrices of the transposed shape: X (batch x in, row-major) is X^T (in x
// batch) for cuBLAS, W (out x in) is W^T (in x out), so Z^T = W X^T is gemm(T, N, out, batch, in).
#include "cuda/gpu_mlp.hpp"

#include "cuda/device_loss.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::executor {

GpuMlp::GpuMlp(std::vector<int> widths, const std::vector<float>& initial_weights, int batch)
    : widths_(std::move(widths)), batch_(batch), stream_(make_stream()) {
  offsets_.push_back(0);
  int max_width = 0;
  for (int l = 0; l < layers(); ++l) {
    offsets_.push_back(offsets_.back() + int64_t{widths_[l]} * widths_[l + 1] + widths_[l + 1]);
    max_width = std::max({max_width, widths_[l], widths_[l + 1]});
  }
  cublasHandle_t blas = nullptr;
  cublas_check(cublasCreate(&blas), "cublasCreate");
  blas_.reset(blas);
  cublas_check(cublasSetStream(blas_.get(), stream_.get()), "cublasSetStream");
  cudnnHandle_t dnn = nullptr;
  cudnn_check(cudnnCreate(&dnn), "cudnnCreate");
  dnn_.reset(dnn);
  cudnn_check(cudnnSetStream(dnn_.get(), stream_.get()), "cudnnSetStream");
  cudnnActivationDescriptor_t relu = nullptr;
  cudnn_check(cudnnCreateActivationDescriptor(&relu), "cudnnCreateActivationDescriptor");
  relu_.reset(relu);
  cudnn_check(cudnnSetActivationDescriptor(relu_.get(), CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
              "cudnnSetActivationDescriptor");
  cudnnTensorDescriptor_t tensor = nullptr;
  cudnn_check(cudnnCreateTensorDescriptor(&tensor), "cudnnCreateTensorDescriptor");
  tensor_.reset(tensor);

  weights_ = device_floats(param_count());
  grads_ = device_floats(param_count());
  cuda_check(cudaMemcpy(weights_.get(), initial_weights.data(), param_count() * sizeof(float),
                        cudaMemcpyHostToDevice),
             "cudaMemcpy (weights)");
  ones_ = device_floats(batch_);
  const std::vector<float> ones(batch_, 1.0f);
  cuda_check(cudaMemcpy(ones_.get(), ones.data(), batch_ * sizeof(float), cudaMemcpyHostToDevice),
             "cudaMemcpy (ones)");
  for (int l = 0; l < layers(); ++l) {
    inputs_.push_back(device_floats(int64_t{batch_} * widths_[l]));
    pre_.push_back(device_floats(int64_t{batch_} * widths_[l + 1]));
  }
  delta_ = device_floats(int64_t{batch_} * max_width);
  delta_prev_ = device_floats(int64_t{batch_} * max_width);
  scratch_ = device_floats(int64_t{batch_} * max_width);
  loss_ready_ = make_event();
  labels_ = device_ints(batch_);
  row_loss_ = device_floats(batch_);
  host_labels_ = pinned_ints(batch_);
  host_row_loss_ = pinned_floats(batch_);
}

void GpuMlp::relu_forward(const float* x, float* y, int64_t count) {
  const float one = 1.0f, zero = 0.0f;
  cudnn_check(
      cudnnSetTensor4dDescriptor(tensor_.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, int(count)),
      "cudnnSetTensor4dDescriptor");
  cudnn_check(
      cudnnActivationForward(dnn_.get(), relu_.get(), &one, tensor_.get(), x, &zero, tensor_.get(), y),
      "cudnnActivationForward");
}

void GpuMlp::relu_backward(const float* y, const float* dy, const float* x, float* dx, int64_t count) {
  const float one = 1.0f, zero = 0.0f;
  cudnn_check(
      cudnnSetTensor4dDescriptor(tensor_.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, int(count)),
      "cudnnSetTensor4dDescriptor");
  cudnn_check(cudnnActivationBackward(dnn_.get(), relu_.get(), &one, tensor_.get(), y, tensor_.get(), dy,
                                      tensor_.get(), x, &zero, tensor_.get(), dx),
              "cudnnActivationBackward");
}

float GpuMlp::forward_backward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks,
                               bool add_to_grads) {
  if (batch != batch_) throw RuntimeFailure("GpuMlp: batch differs from the one it was built for");
  const int L = layers();
  const float one = 1.0f, zero = 0.0f;
  const float* grad_beta = add_to_grads ? &one : &zero;  // accumulate into the step's gradients
  cuda_check(cudaMemcpyAsync(inputs_[0].get(), x, sizeof(float) * batch * widths_[0], cudaMemcpyHostToDevice,
                             stream_.get()),
             "cudaMemcpyAsync (batch)");
  // The previous step's label copy has finished: its loss was read after a synchronisation.
  std::copy(y, y + batch, host_labels_.get());
  cuda_check(cudaMemcpyAsync(labels_.get(), host_labels_.get(), sizeof(int32_t) * batch,
                             cudaMemcpyHostToDevice, stream_.get()),
             "cudaMemcpyAsync (labels)");
  for (int l = 0; l < L; ++l) {
    const int in = widths_[l], out = widths_[l + 1];
    const float* w = weights_.get() + offsets_[l];
    const float* b = w + int64_t{in} * out;
    cublas_check(cublasSgemm(blas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, &one, w, in,
                             inputs_[l].get(), in, &zero, pre_[l].get(), out),
                 "cublasSgemm (forward)");
    cublas_check(cublasSger(blas_.get(), out, batch, &one, b, 1, ones_.get(), 1, pre_[l].get(), out),
                 "cublasSger (bias)");
    if (l + 1 < L) relu_forward(pre_[l].get(), inputs_[l + 1].get(), int64_t{batch} * out);
    if (hooks.poll) hooks.poll();
  }
  const int classes = widths_.back();
  softmax_cross_entropy_on_device(pre_[L - 1].get(), labels_.get(), batch, classes, delta_.get(),
                                  row_loss_.get(), stream_.get());
  cuda_check(cudaMemcpyAsync(host_row_loss_.get(), row_loss_.get(), sizeof(float) * batch,
                             cudaMemcpyDeviceToHost, stream_.get()),
             "cudaMemcpyAsync (losses)");
  cuda_check(cudaEventRecord(loss_ready_.get(), stream_.get()), "cudaEventRecord (losses)");
  if (hooks.poll) hooks.poll();

  for (int l = L - 1; l >= 0; --l) {
    const int in = widths_[l], out = widths_[l + 1];
    const float* w = weights_.get() + offsets_[l];
    float* dw = grads_.get() + offsets_[l];
    float* db = dw + int64_t{in} * out;
    // dW^T (in x out) = X^T delta; db = delta^T ones.
    cublas_check(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, &one, inputs_[l].get(),
                             in, delta_.get(), out, grad_beta, dw, in),
                 "cublasSgemm (weight gradient)");
    cublas_check(cublasSgemv(blas_.get(), CUBLAS_OP_N, out, batch, &one, delta_.get(), out, ones_.get(), 1,
                             grad_beta, db, 1),
                 "cublasSgemv (bias gradient)");
    if (l > 0) {
      // dX^T (in x batch) = W^T delta^T, then through the ReLU of the previous layer.
      cublas_check(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, in, batch, out, &one, w, in,
                               delta_.get(), out, &zero, scratch_.get(), in),
                   "cublasSgemm (input gradient)");
      relu_backward(inputs_[l].get(), scratch_.get(), pre_[l - 1].get(), delta_prev_.get(),
                    int64_t{batch} * in);
      std::swap(delta_, delta_prev_);
    }
    if (hooks.backward_done) hooks.backward_done(l);
    if (hooks.poll) hooks.poll();
  }
  // The losses' copy was enqueued before backward: waiting for it alone leaves backward running.
  cuda_check(cudaEventSynchronize(loss_ready_.get()), "cudaEventSynchronize (losses)");
  double loss = 0.0;
  for (int r = 0; r < batch; ++r) loss += host_row_loss_.get()[r];
  return static_cast<float>(loss / batch);
}

std::vector<float> GpuMlp::weights_to_host() const {
  std::vector<float> host(param_count());
  cuda_check(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize");
  cuda_check(cudaMemcpy(host.data(), weights_.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost),
             "cudaMemcpy (weights to host)");
  return host;
}

}  // namespace dasim::executor
