// Internal: the smooth losses the primal solvers (solver/primal_cd.cpp, solver/newton.cpp) step
// on, as functions of the score z for target y, with their first two derivatives: squared,
// logistic, and the L2-loss SVM's squared hinge (its generalised second derivative).
#pragma once

#include <algorithm>
#include <cmath>

#include "parsgd/model/model_kind.hpp"

namespace parsgd {

struct SquaredCd {
  static constexpr bool kExact = true;  // quadratic: the Newton step is the coordinate's minimiser
  static double Value(double z, double y) { return 0.5 * (z - y) * (z - y); }
  static void Derivatives(float z, float y, double& d1, double& d2) {
    d1 = double(z) - y;
    d2 = 1;
  }
};

struct LogisticCd {
  static constexpr bool kExact = false;
  static constexpr double kMaxD2 = 0.25;  // loss'' <= 1/4 everywhere
  // In double: the line search sums differences of nearby values.
  static double Value(double z, double y) {
    const double m = y * z;
    return std::log1p(std::exp(-std::abs(m))) + std::max(-m, 0.0);
  }
  // In float (one exp per nonzero: the solver's main cost), summed in double by the caller.
  static void Derivatives(float z, float y, double& d1, double& d2) {
    const float m = y * z;
    const float e = std::exp(-std::abs(m));
    const float s = m >= 0 ? e / (1 + e) : 1 / (1 + e);  // sigmoid(-m)
    d1 = -y * s;
    d2 = s * (1 - s);
  }
};

// The L2-loss SVM's, max(0, 1 - y z)^2: piecewise quadratic, its second derivative 2 or 0 (the
// generalised Hessian of Chang, Hsieh and Lin 2008), so a Newton step with the line search.
struct SquaredHingeCd {
  static constexpr bool kExact = false;
  static constexpr double kMaxD2 = 2;
  static double Value(double z, double y) {
    const double slack = std::max(1 - y * z, 0.0);
    return slack * slack;
  }
  static void Derivatives(float z, float y, double& d1, double& d2) {
    const double slack = std::max(1 - double(y) * z, 0.0);
    d1 = -2 * double(y) * slack;
    d2 = slack > 0 ? 2 : 0;
  }
};

// Calls fn(L{}) with the primal loss L of `loss` (squared, squared hinge, or else logistic: the
// settings refuse the others for these solvers): the one dispatch from a loss to its code.
template <class Fn>
decltype(auto) WithPrimalLoss(Loss loss, Fn&& fn) {
  if (loss == Loss::kSquared) return fn(SquaredCd{});
  if (loss == Loss::kSquaredHinge) return fn(SquaredHingeCd{});
  return fn(LogisticCd{});
}

}  // namespace parsgd
