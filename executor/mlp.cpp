// MLP forward/backward on cblas_sgemm (see mlp.hpp for the contract).
#include "mlp.hpp"

#include "rng.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace dasim::executor {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void call(const std::function<void()>& f) {
  if (f) f();
}

void call(const std::function<void(int)>& f, int layer) {
  if (f) f(layer);
}

}  // namespace

double softmax_cross_entropy(const float* logits, const int32_t* y, int batch, int classes, float* delta) {
  double loss = 0.0;
  for (int r = 0; r < batch; ++r) {
    const float* row = logits + int64_t{r} * classes;
    float* d = delta + int64_t{r} * classes;
    const float max = *std::max_element(row, row + classes);
    double sum = 0.0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c] - max));
    loss += std::log(sum) - (row[y[r]] - max);
    for (int c = 0; c < classes; ++c)
      d[c] = static_cast<float>(
          (std::exp(static_cast<double>(row[c] - max)) / sum - (c == y[r] ? 1.0 : 0.0)) / batch);
  }
  return loss / batch;
}

Mlp::Mlp(std::vector<int> widths, uint64_t seed) : widths_(std::move(widths)) {
  if (widths_.size() < 2) throw std::invalid_argument("an MLP needs at least an input and an output width");
  offsets_.push_back(0);
  for (int l = 0; l < layers(); ++l)
    offsets_.push_back(offsets_.back() + int64_t{widths_[l]} * widths_[l + 1] + widths_[l + 1]);
  weights_.assign(offsets_.back(), 0.0f);
  grads_.assign(offsets_.back(), 0.0f);
  for (int l = 0; l < layers(); ++l) {
    const int64_t n_w = int64_t{widths_[l]} * widths_[l + 1];
    const double scale = std::sqrt(2.0 / widths_[l]);
    for (int64_t i = 0; i < n_w; ++i)
      weights_[offsets_[l] + i] =
          static_cast<float>(scale * gaussian(seed, static_cast<uint64_t>(offsets_[l] + i)));
  }
  inputs_.resize(layers());
  pre_.resize(layers());
  forward_times_s_.assign(layers(), 0.0);
  backward_times_s_.assign(layers(), 0.0);
}

float Mlp::forward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks) {
  const int L = layers();
  for (int l = 0; l < L; ++l) {
    call(hooks.forward_begin, l);
    const double t0 = now_s();
    const int in = widths_[l], out = widths_[l + 1];
    auto& input = inputs_[l];
    if (l == 0) {
      input.assign(x, x + static_cast<int64_t>(batch) * in);
    } else {
      const auto& prev = pre_[l - 1];
      input.resize(prev.size());
      for (size_t i = 0; i < prev.size(); ++i) input[i] = prev[i] > 0.0f ? prev[i] : 0.0f;  // ReLU
    }
    auto& z = pre_[l];
    z.resize(static_cast<size_t>(batch) * out);
    const float* w = weights_.data() + offsets_[l];
    const float* b = w + int64_t{in} * out;
    for (int r = 0; r < batch; ++r) std::copy_n(b, out, z.data() + int64_t{r} * out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, out, in, 1.0f, input.data(), in, w, in, 1.0f,
                z.data(), out);
    forward_times_s_[l] = now_s() - t0;
    if (l + 1 < L) {
      call(hooks.forward_done, l);
      call(hooks.poll);
    }
  }
  // Softmax cross-entropy; delta_ becomes dLoss/dlogits = (softmax - onehot) / batch.
  const double t0 = now_s();
  const int classes = widths_.back();
  const auto& logits = pre_[L - 1];
  delta_.resize(logits.size());
  const double loss = softmax_cross_entropy(logits.data(), y, batch, classes, delta_.data());
  forward_times_s_[L - 1] += now_s() - t0;
  call(hooks.forward_done, L - 1);
  call(hooks.poll);
  return static_cast<float>(loss);
}

float Mlp::loss(const float* x, const int32_t* y, int batch) {
  return forward(x, y, batch, {});
}

float Mlp::forward_backward(const float* x, const int32_t* y, int batch, const MlpHooks& hooks,
                            bool add_to_grads) {
  const float beta = add_to_grads ? 1.0f : 0.0f;
  const float loss_value = forward(x, y, batch, hooks);
  for (int l = layers() - 1; l >= 0; --l) {
    call(hooks.backward_begin, l);
    const double t0 = now_s();
    const int in = widths_[l], out = widths_[l + 1];
    const float* w = weights_.data() + offsets_[l];
    float* dw = grads_.data() + offsets_[l];
    float* db = dw + int64_t{in} * out;
    // dW = delta^T input (out x in); db = column sums of delta.
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, batch, 1.0f, delta_.data(), out,
                inputs_[l].data(), in, beta, dw, in);
    if (!add_to_grads) std::fill_n(db, out, 0.0f);
    for (int r = 0; r < batch; ++r)
      for (int c = 0; c < out; ++c) db[c] += delta_[int64_t{r} * out + c];
    if (l > 0) {
      // dInput = delta W (batch x in), then through the ReLU of the previous layer.
      delta_prev_.resize(static_cast<size_t>(batch) * in);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, in, out, 1.0f, delta_.data(), out, w, in,
                  0.0f, delta_prev_.data(), in);
      const auto& z = pre_[l - 1];
      for (size_t i = 0; i < delta_prev_.size(); ++i)
        if (z[i] <= 0.0f) delta_prev_[i] = 0.0f;
      std::swap(delta_, delta_prev_);
    }
    backward_times_s_[l] = now_s() - t0;
    if (hooks.backward_done) hooks.backward_done(l);
    call(hooks.poll);
  }
  return loss_value;
}

}  // namespace dasim::executor
