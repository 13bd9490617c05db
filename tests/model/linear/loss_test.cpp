#include "parsgd/model/linear/loss.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace parsgd {
namespace {

// Central differences in double: error O(h^2) ~ 1e-10, far below the float derivative's rounding
// (~1e-7 relative), so a 1e-5 tolerance checks the formula, not the rounding.
template <class Loss>
float Derivative(float z, float y) {
  float d;
  Loss::ValueAndDerivative(z, y, &d);
  return d;
}

// The losses in double, written from their definitions (not from the float code).
double Exact(LogisticLoss, double z, double y) {
  const double m = y * z;  // log(1 + exp(-m)), stable for either sign of m
  return m >= 0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m));
}
double Exact(HingeLoss, double z, double y) { return std::max(0.0, 1 - y * z); }
double Exact(SquaredLoss, double z, double y) { return 0.5 * (z - y) * (z - y); }

// Central differences of the loss in float, step h = 1e-2: truncation O(h^2) ~ 1e-4 (second
// derivatives are at most 1), rounding ~ 6e-8 * |loss| / h, under 1e-3 for these |z| <= 30.
// The value itself against the double definition: a few float roundings, 1e-6 relative.
template <class Loss>
void CheckDerivative(float z, float y) {
  const float h = 1e-2f;
  const double numeric =
      (static_cast<double>(Loss::Value(z + h, y)) - Loss::Value(z - h, y)) / (2 * h);
  EXPECT_NEAR(Derivative<Loss>(z, y), numeric, 2e-3) << "z=" << z << " y=" << y;
  float d;
  const float value = Loss::ValueAndDerivative(z, y, &d);
  const double exact = Exact(Loss{}, z, y);
  EXPECT_NEAR(value, exact, 1e-6 * std::max(1.0, exact)) << "z=" << z << " y=" << y;
  EXPECT_EQ(Loss::Value(z, y), value) << "z=" << z << " y=" << y;  // Value has its own code
}

TEST(Loss, BinaryDerivativesMatchFiniteDifferences) {
  for (float y : {-1.f, 1.f}) {
    for (float z : {-30.f, -3.f, -0.7f, 0.f, 0.4f, 2.5f, 30.f}) {
      CheckDerivative<LogisticLoss>(z, y);
      CheckDerivative<SquaredLoss>(z, y);
      if (std::abs(y * z - 1) > 0.1) CheckDerivative<HingeLoss>(z, y);  // away from the kink
    }
  }
}

TEST(Loss, ExactValues) {
  EXPECT_FLOAT_EQ(LogisticLoss::Value(0, 1), std::log(2.f));
  EXPECT_FLOAT_EQ(Derivative<LogisticLoss>(0, 1), -0.5f);
  EXPECT_FLOAT_EQ(LogisticLoss::Value(2, -1), std::log1p(std::exp(2.f)));
  EXPECT_FLOAT_EQ(Derivative<LogisticLoss>(2, -1), 1.f / (1.f + std::exp(-2.f)));
  EXPECT_FLOAT_EQ(HingeLoss::Value(0.25, 1), 0.75f);
  EXPECT_EQ(Derivative<HingeLoss>(1.5f, 1), 0.f);
  EXPECT_EQ(Derivative<HingeLoss>(0.5f, -1), 1.f);
  EXPECT_FLOAT_EQ(SquaredLoss::Value(3, -1), 8.f);
  EXPECT_EQ(Derivative<SquaredLoss>(3, -1), 4.f);
}

// The inline log1p of the logistic loss against libm's in double, over [0, 1] (every 2^-20, and
// tiny and subnormal arguments): within one float ulp of the exact value.
TEST(Loss, Log1pUnitIsWithinOneUlp) {
  std::vector<float> args;
  for (int i = 0; i <= (1 << 20); ++i) args.push_back(std::ldexp(static_cast<float>(i), -20));
  for (float e : {1e-45f, 1e-38f, 1e-30f, 1e-12f, 3e-8f, 1e-7f, 0.1f, 1.f / 3, 0.999999f}) {
    args.push_back(e);
  }
  int misrounded = 0;
  for (const float e : args) {
    const double exact = std::log1p(static_cast<double>(e));
    const float got = Log1pUnit(e);
    const double ulp = std::nextafter(static_cast<float>(exact), 2.f) - static_cast<float>(exact);
    ASSERT_LE(std::abs(got - exact), ulp) << "e=" << e << " got " << got << " exact " << exact;
    if (got != static_cast<float>(exact)) ++misrounded;
  }
  // And nearly every one is the correctly rounded value: the series' tail (at most 1.4e-8 of the
  // value, near e = 1) moves only results that lie that close to a rounding midpoint (1.5% here).
  EXPECT_LT(misrounded, static_cast<int>(args.size() / 25));
}

TEST(Loss, LogisticIsStableForLargeMargins) {
  EXPECT_FLOAT_EQ(LogisticLoss::Value(-1000, 1), 1000.f);
  EXPECT_EQ(LogisticLoss::Value(1000, 1), 0.f);
  EXPECT_FLOAT_EQ(Derivative<LogisticLoss>(-1000, 1), -1.f);
  EXPECT_EQ(Derivative<LogisticLoss>(1000, 1), 0.f);
  EXPECT_FLOAT_EQ(Derivative<LogisticLoss>(1000, -1), 1.f);
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
