#include "parsgd/train/linear_step.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace parsgd {
namespace {

// One hand-computed step of regularised logistic SGD.
TEST(LinearStep, LogisticStepMatchesHandComputation) {
  // features 3, weights w = (0.5, -1, 2), bias 0.25; row x = {0: 2, 2: -1}, y = +1; feature 2 has
  // step multiplier m = 2 and shrink rate m r = 0.3.
  std::vector<float> w = {0.5f, -1.f, 2.f, 0.25f};
  const std::vector<FeatureRate> reg = {{1.f, 0.1f}, {1.f, 0.2f}, {2.f, 0.3f}};
  const uint32_t index[] = {0, 2};
  const float value[] = {2.f, -1.f};
  const SparseRow x{index, value, 2};
  const LinearParams p{w.data(), 3, 1, reg.data()};
  HogwildScheme scheme;
  float z[1];
  const float eta = 0.5f;
  const double loss = LinearSgdStep<BinaryHead<LogisticLoss>>(scheme, p, x, 1.f, eta, z);
  // score = 0.25 + 0.5*2 + 2*(-1) = -0.75; loss = log(1 + e^0.75); g = -1 / (1 + e^-0.75).
  EXPECT_NEAR(loss, std::log1p(std::exp(0.75)), 1e-6);
  const float g = -1.f / (1.f + std::exp(-0.75f));
  const float step = -eta * g;
  EXPECT_FLOAT_EQ(w[0], (0.5f + step * 2.f) / (1.f + eta * 0.1f));
  EXPECT_FLOAT_EQ(w[1], -1.f);  // untouched: no regularisation either
  EXPECT_FLOAT_EQ(w[2], (2.f + step * 2.f * -1.f) / (1.f + eta * 0.3f));  // step multiplier 2
  EXPECT_FLOAT_EQ(w[3], 0.25f + step);  // bias: not regularised
}

TEST(LinearStep, SoftmaxStepMovesTowardTheTrueClass) {
  // 2 features, 3 classes, zero weights: every class has probability 1/3.
  std::vector<float> w(9, 0.f);
  const uint32_t index[] = {1};
  const float value[] = {3.f};
  const SparseRow x{index, value, 1};
  const LinearParams p{w.data(), 2, 3, nullptr};
  AtomicScheme scheme;
  float z[3];
  const double loss = LinearSgdStep<SoftmaxHead>(scheme, p, x, 2.f, 0.1f, z);
  EXPECT_NEAR(loss, std::log(3.0), 1e-6);
  // grad_k = 1/3 - [k == 2]; w(1, k) = -0.1 * grad_k * 3.
  EXPECT_FLOAT_EQ(w[3 + 0], -0.1f * (1.f / 3) * 3.f);
  EXPECT_FLOAT_EQ(w[3 + 2], -0.1f * (1.f / 3 - 1.f) * 3.f);
  EXPECT_FLOAT_EQ(w[0], 0.f);  // feature 0 untouched
  EXPECT_FLOAT_EQ(w[6 + 2], -0.1f * (1.f / 3 - 1.f));  // bias of class 2
}

TEST(LinearStep, HingeBeyondTheMarginWithoutL2ChangesNothing) {
  std::vector<float> w = {2.f, 0.f};
  const uint32_t index[] = {0};
  const float value[] = {1.f};
  LockedScheme scheme;
  float z[1];
  LinearSgdStep<BinaryHead<HingeLoss>>(scheme, LinearParams{w.data(), 1, 1, nullptr},
                                       SparseRow{index, value, 1}, 1.f, 0.5f, z);
  EXPECT_EQ(w[0], 2.f);
  EXPECT_EQ(w[1], 0.f);
}

TEST(LinearStep, StripesCoverACacheLineOfWeights) {
  StripedScheme binary(1000, 1);
  EXPECT_EQ(binary.StripeOf(15), 0u);
  EXPECT_EQ(binary.StripeOf(16), 1u);
  StripedScheme ten(1000, 10);
  EXPECT_EQ(ten.StripeOf(1), 1u);  // 10 floats per feature: one feature per stripe
  StripedScheme four(1000, 4);
  EXPECT_EQ(four.StripeOf(3), 0u);
  EXPECT_EQ(four.StripeOf(4), 1u);
}

}  // namespace
}  // namespace parsgd
