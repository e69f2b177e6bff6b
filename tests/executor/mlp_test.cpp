// The MLP's loss and gradients against independent computations: the loss of an all-zero model is
// ln(classes) for any input, and every analytic gradient entry matches a central finite difference
// of the loss.
#include "mlp.hpp"

#include <gtest/gtest.h>

#include <cmath>

using dasim::executor::Mlp;

TEST(Mlp, ZeroWeightsGiveUniformSoftmaxLoss) {
  Mlp model({5, 4, 3}, 7);
  std::fill(model.weights().begin(), model.weights().end(), 0.0f);
  std::vector<float> x(2 * 5, 0.3f);
  std::vector<int32_t> y{0, 2};
  EXPECT_NEAR(model.loss(x.data(), y.data(), 2), std::log(3.0), 1e-6);
}

TEST(Mlp, ParameterLayoutIsLayerAfterLayer) {
  Mlp model({5, 4, 3}, 7);
  EXPECT_EQ(model.layer_params(0), 5 * 4 + 4);
  EXPECT_EQ(model.layer_params(1), 4 * 3 + 3);
  EXPECT_EQ(model.layer_offset(1), 24);
  EXPECT_EQ(model.param_count(), 24 + 15);
}

TEST(Mlp, GradientMatchesFiniteDifferences) {
  Mlp model({6, 5, 4, 3}, 11);
  const int batch = 4;
  std::vector<float> x(batch * 6);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * i + 0.3);
  std::vector<int32_t> y{0, 1, 2, 1};
  for (size_t i = 0; i < model.weights().size(); ++i)
    model.weights()[i] += 0.05f * std::cos(1.3 * i);  // non-zero biases
  model.forward_backward(x.data(), y.data(), batch);
  const std::vector<float> grads = model.grads();
  const float h = 1e-3f;  // small enough not to cross a ReLU kink of this input
  for (size_t i = 0; i < model.weights().size(); ++i) {
    const float saved = model.weights()[i];
    model.weights()[i] = saved + h;
    const double up = model.loss(x.data(), y.data(), batch);
    model.weights()[i] = saved - h;
    const double down = model.loss(x.data(), y.data(), batch);
    model.weights()[i] = saved;
    EXPECT_NEAR(grads[i], (up - down) / (2 * h), 2e-3) << "parameter " << i;
  }
}

TEST(Mlp, SameSeedSameWeightsDifferentSeedDifferent) {
  EXPECT_EQ(Mlp({8, 4, 2}, 3).weights(), Mlp({8, 4, 2}, 3).weights());
  EXPECT_NE(Mlp({8, 4, 2}, 3).weights(), Mlp({8, 4, 2}, 4).weights());
}
