#include "parsgd/model/loss.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace parsgd {
namespace {

// Central differences in double: error O(h^2) ~ 1e-10, far below the float derivative's rounding
// (~1e-7 relative), so a 1e-5 tolerance checks the formula, not the rounding.
template <class Loss>
void CheckDerivative(float z, float y) {
  const double h = 1e-5;
  const double numeric = (Loss::Value(z + h, y) - Loss::Value(z - h, y)) / (2 * h);
  EXPECT_NEAR(Loss::Derivative(z, y), numeric, 1e-5) << "z=" << z << " y=" << y;
}

TEST(Loss, BinaryDerivativesMatchFiniteDifferences) {
  for (float y : {-1.f, 1.f}) {
    for (float z : {-30.f, -3.f, -0.7f, 0.f, 0.4f, 2.5f, 30.f}) {
      CheckDerivative<LogisticLoss>(z, y);
      CheckDerivative<SquaredLoss>(z, y);
      if (std::abs(y * z - 1) > 1e-3) CheckDerivative<HingeLoss>(z, y);  // away from the kink
    }
  }
}

TEST(Loss, ExactValues) {
  EXPECT_DOUBLE_EQ(LogisticLoss::Value(0, 1), std::log(2.0));
  EXPECT_FLOAT_EQ(LogisticLoss::Derivative(0, 1), -0.5f);
  EXPECT_DOUBLE_EQ(HingeLoss::Value(0.25, 1), 0.75);
  EXPECT_EQ(HingeLoss::Derivative(1.5f, 1), 0.f);
  EXPECT_EQ(HingeLoss::Derivative(0.5f, -1), 1.f);
  EXPECT_DOUBLE_EQ(SquaredLoss::Value(3, -1), 8.0);
  EXPECT_EQ(SquaredLoss::Derivative(3, -1), 4.f);
}

TEST(Loss, LogisticIsStableForLargeMargins) {
  EXPECT_NEAR(LogisticLoss::Value(-1000, 1), 1000, 1e-9);
  EXPECT_NEAR(LogisticLoss::Value(1000, 1), 0, 1e-300);
  EXPECT_TRUE(std::isfinite(LogisticLoss::Derivative(-1000, 1)));
  EXPECT_FLOAT_EQ(LogisticLoss::Derivative(-1000, 1), -1.f);
  EXPECT_FLOAT_EQ(LogisticLoss::Derivative(1000, 1), 0.f);
}

TEST(Loss, SoftmaxGradientMatchesFiniteDifferences) {
  const std::vector<float> z = {0.3f, -1.2f, 2.0f, 0.0f};
  for (int y = 0; y < 4; ++y) {
    std::vector<float> grad(4);
    const double value = SoftmaxLoss::ValueAndGradient(z.data(), 4, y, grad.data());
    EXPECT_NEAR(value, SoftmaxLoss::Value(z.data(), 4, y), 1e-6);
    for (int k = 0; k < 4; ++k) {
      std::vector<float> up = z, down = z;
      up[k] += 1e-2f;
      down[k] -= 1e-2f;
      // h = 1e-2 in float: truncation O(h^2) ~ 1e-4, rounding ~1e-7 / h ~ 1e-5.
      const double numeric =
          (SoftmaxLoss::Value(up.data(), 4, y) - SoftmaxLoss::Value(down.data(), 4, y)) / 2e-2;
      EXPECT_NEAR(grad[k], numeric, 5e-4) << "y=" << y << " k=" << k;
    }
  }
}

TEST(Loss, SoftmaxGradientSumsToZeroAndAllowsAliasing) {
  std::vector<float> z = {1.f, 2.f, 3.f};
  const double value = SoftmaxLoss::ValueAndGradient(z.data(), 3, 1, z.data());  // in place
  EXPECT_NEAR(value, std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 2.0, 1e-6);
  EXPECT_NEAR(z[0] + z[1] + z[2], 0.f, 1e-6);
  EXPECT_LT(z[1], 0.f);
}

TEST(Loss, SoftmaxIsStableForLargeScores) {
  const std::vector<float> z = {1000.f, -1000.f};
  EXPECT_NEAR(SoftmaxLoss::Value(z.data(), 2, 0), 0, 1e-12);
  EXPECT_NEAR(SoftmaxLoss::Value(z.data(), 2, 1), 2000, 1e-9);
}

}  // namespace
}  // namespace parsgd
