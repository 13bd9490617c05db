// Loss functions of the linear models, as small static policy types: everything per sample is
// inlined into the training loop.
//
// A model maps a row x to K scores z = W^T x + b (K = 1 for the binary and regression losses). A
// loss type gives the per-sample loss of the scores and its derivative with respect to each score;
// the trainer applies the chain rule to the weights. Binary targets are y in {-1, +1}; regression
// targets are real values; softmax targets are class ids 0..K-1. A loss with a parameter (the
// regression losses' width) is a value that holds it; the others are empty. Values are computed in
// double (they feed the reported objective); derivatives in float (they feed the updates).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "parsgd/model/model_kind.hpp"

namespace parsgd {

// log(1 + e) for e in [0, 1], inline and without a library call (the training loop takes one per
// sample): log1p(e) = 2 atanh(s) with s = e / (2 + e) in [0, 1/3], summed in double as
// 2 s (1 + s^2/3 + ... + s^12/13). The first term left out is below 1.5e-8 of the value, under a
// quarter of a float's rounding step: the result is within one ulp of the exact value (and nearly
// always the correctly rounded one: tests/model/linear/loss_test.cpp).
inline float Log1pUnit(float e) {
  const double s = e / (2.0 + e);
  const double t = s * s;
  double p = 1.0 / 13;
  p = p * t + 1.0 / 11;
  p = p * t + 1.0 / 9;
  p = p * t + 1.0 / 7;
  p = p * t + 1.0 / 5;
  p = p * t + 1.0 / 3;
  p = p * t + 1.0;
  return static_cast<float>(2.0 * s * p);
}

// Binary losses give the loss of score z for target y in {-1, +1} and, through `derivative`,
// d loss / dz. Value() is the same without the derivative.

struct LogisticLoss {
  static constexpr Loss kLoss = Loss::kLogistic;
  // Bound on d2(loss)/dz2, used to scale the default step size.
  static constexpr double kCurvature = 0.25;
  static float ValueAndDerivative(float z, float y, float* derivative) {
    // One exp serves both: with m = y z and e = exp(-|m|), log(1 + exp(-m)) = log1p(e) + max(-m, 0)
    // and sigmoid(-m) = e / (1 + e) for m >= 0, 1 / (1 + e) for m < 0; nothing overflows.
    const float m = y * z;
    const float e = std::exp(-std::abs(m));
    *derivative = -y * (m >= 0 ? e : 1.f) / (1.f + e);
    return Log1pUnit(e) + std::max(-m, 0.f);
  }
  static float Value(float z, float y) {
    float unused;
    return ValueAndDerivative(z, y, &unused);
  }
};

struct HingeLoss {
  static constexpr Loss kLoss = Loss::kHinge;
  static constexpr double kCurvature = 1.0;  // not smooth; scale as a unit-curvature loss
  // A subgradient: -y where the margin is violated, 0 where y z >= 1.
  static float ValueAndDerivative(float z, float y, float* derivative) {
    const float slack = 1.f - y * z;
    *derivative = slack > 0 ? -y : 0.f;
    return std::max(slack, 0.f);
  }
  static float Value(float z, float y) { return std::max(1.f - y * z, 0.f); }
};

// The L2-loss SVM's: smooth, with a kink in its second derivative at y z = 1.
struct SquaredHingeLoss {
  static constexpr Loss kLoss = Loss::kSquaredHinge;
  static constexpr double kCurvature = 2.0;
  static float ValueAndDerivative(float z, float y, float* derivative) {
    const float slack = std::max(1.f - y * z, 0.f);
    *derivative = -2.f * y * slack;
    return slack * slack;
  }
  static float Value(float z, float y) {
    const float slack = std::max(1.f - y * z, 0.f);
    return slack * slack;
  }
};

struct SquaredLoss {
  static constexpr Loss kLoss = Loss::kSquared;
  static constexpr double kCurvature = 1.0;
  static float ValueAndDerivative(float z, float y, float* derivative) {
    *derivative = z - y;
    return 0.5f * (z - y) * (z - y);
  }
  static float Value(float z, float y) { return 0.5f * (z - y) * (z - y); }
};

// The regression losses of the residual r = z - y that grow linearly past a width epsilon
// (--loss-epsilon, scikit-learn's epsilon): Huber's loss, r^2 / 2 within epsilon and
// epsilon (|r| - epsilon / 2) beyond (robust to outlying targets); and the epsilon-insensitive loss
// of support vector regression, max(0, |r| - epsilon) (no loss within the tube).
struct HuberLoss {
  static constexpr Loss kLoss = Loss::kHuber;
  static constexpr double kCurvature = 1.0;  // r^2 / 2 inside the zone
  float epsilon = 0.1f;
  float ValueAndDerivative(float z, float y, float* derivative) const {
    const float r = z - y;
    if (std::abs(r) <= epsilon) {
      *derivative = r;
      return 0.5f * r * r;
    }
    *derivative = r > 0 ? epsilon : -epsilon;
    return epsilon * (std::abs(r) - 0.5f * epsilon);
  }
  float Value(float z, float y) const {
    float unused;
    return ValueAndDerivative(z, y, &unused);
  }
};

struct EpsilonInsensitiveLoss {
  static constexpr Loss kLoss = Loss::kEpsilonInsensitive;
  static constexpr double kCurvature = 1.0;  // not smooth; scaled as the hinge is
  float epsilon = 0.1f;
  // A subgradient: the residual's sign outside the tube, 0 inside.
  float ValueAndDerivative(float z, float y, float* derivative) const {
    const float r = z - y;
    const float excess = std::abs(r) - epsilon;
    *derivative = excess > 0 ? (r > 0 ? 1.f : -1.f) : 0.f;
    return std::max(excess, 0.f);
  }
  float Value(float z, float y) const { return std::max(std::abs(z - y) - epsilon, 0.f); }
};

// Any loss of one score, chosen at run time: the training loops hold one of these rather than
// being compiled once per loss (one switch a sample, which the branch predictor learns, against a
// dot product and an update over the row; a copy of every epoch loop per loss would be most of the
// library's compile time). `epsilon` is the regression losses' width.
struct ScoreLoss {
  Loss loss = Loss::kLogistic;  // any but softmax
  float epsilon = 0.1f;
  float ValueAndDerivative(float z, float y, float* derivative) const {
    switch (loss) {
      case Loss::kHinge:
        return HingeLoss::ValueAndDerivative(z, y, derivative);
      case Loss::kSquaredHinge:
        return SquaredHingeLoss::ValueAndDerivative(z, y, derivative);
      case Loss::kSquared:
        return SquaredLoss::ValueAndDerivative(z, y, derivative);
      case Loss::kHuber:
        return HuberLoss{epsilon}.ValueAndDerivative(z, y, derivative);
      case Loss::kEpsilonInsensitive:
        return EpsilonInsensitiveLoss{epsilon}.ValueAndDerivative(z, y, derivative);
      default:
        return LogisticLoss::ValueAndDerivative(z, y, derivative);
    }
  }
  float Value(float z, float y) const {
    float unused;
    return ValueAndDerivative(z, y, &unused);
  }
};

// Softmax cross-entropy over K scores: loss = logsumexp(z) - z[y]; dloss/dz_k = p_k - [k == y].
struct SoftmaxLoss {
  static constexpr Loss kLoss = Loss::kSoftmax;
  static constexpr double kCurvature = 0.5;  // the Hessian diag(p) - p p^T has norm <= 1/2

  // Writes the derivatives into grad[0..k) and returns the loss. z and grad may alias.
  static double ValueAndGradient(const float* z, int k, int y, float* grad) {
    float top = z[0];
    for (int c = 1; c < k; ++c) top = std::max(top, z[c]);
    double sum = 0;
    const float zy = z[y];
    for (int c = 0; c < k; ++c) {
      grad[c] = std::exp(z[c] - top);
      sum += grad[c];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int c = 0; c < k; ++c) grad[c] *= inv;
    grad[y] -= 1.f;
    return std::log(sum) + top - zy;
  }
  static double Value(const float* z, int k, int y) {
    float top = z[0];
    for (int c = 1; c < k; ++c) top = std::max(top, z[c]);
    double sum = 0;
    for (int c = 0; c < k; ++c) sum += std::exp(static_cast<double>(z[c] - top));
    return std::log(sum) + top - z[y];
  }
};

// A bound on the second derivative of `loss` in its score (the kCurvature above), which scales the
// default step size.
constexpr double CurvatureOf(Loss loss) {
  switch (loss) {
    case Loss::kHinge:
      return HingeLoss::kCurvature;
    case Loss::kSquaredHinge:
      return SquaredHingeLoss::kCurvature;
    case Loss::kSquared:
      return SquaredLoss::kCurvature;
    case Loss::kHuber:
      return HuberLoss::kCurvature;
    case Loss::kEpsilonInsensitive:
      return EpsilonInsensitiveLoss::kCurvature;
    case Loss::kSoftmax:
      return SoftmaxLoss::kCurvature;
    case Loss::kLogistic:
      break;
  }
  return LogisticLoss::kCurvature;
}

}  // namespace parsgd
