#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace parsgd::compare {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified Lentz's method);
// converges fast for x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));  // the even step
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));  // the odd step
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return h;
}

}  // namespace

Summary Summarize(std::span<const double> given) {
  Summary s;
  s.n = static_cast<int>(given.size());
  if (s.n == 0) return {0, kNaN, kNaN, kNaN, kNaN, kNaN};
  std::vector<double> values(given.begin(), given.end());
  std::sort(values.begin(), values.end(),
            [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; });
  double sum = 0;
  s.min = s.max = values[0];
  for (double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / s.n;
  if (s.n < 2) {
    s.std = s.sem = kNaN;
    return s;
  }
  double squares = 0;  // two passes: no cancellation from sum of squares minus square of sum
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(squares / (s.n - 1));
  s.sem = s.std / std::sqrt(static_cast<double>(s.n));
  return s;
}

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  // The fraction converges for x below the mean of the distribution; use the symmetry
  // I_x(a, b) = 1 - I_{1-x}(b, a) above it.
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

double StudentTwoSidedP(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(t)) return 0;
  return RegularizedIncompleteBeta(df / 2, 0.5, df / (df + t * t));
}

std::optional<WelchResult> WelchTest(const Summary& a, const Summary& b) {
  if (a.n < 2 || b.n < 2) return std::nullopt;
  const double va = a.std * a.std / a.n, vb = b.std * b.std / b.n;
  const double diff = a.mean - b.mean;
  if (va + vb == 0) {
    if (diff == 0) return WelchResult{0, kNaN, 1};
    return WelchResult{diff > 0 ? std::numeric_limits<double>::infinity()
                                : -std::numeric_limits<double>::infinity(),
                       kNaN, 0};
  }
  WelchResult r;
  r.t = diff / std::sqrt(va + vb);
  r.df = (va + vb) * (va + vb) / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
  r.p = StudentTwoSidedP(r.t, r.df);
  return r;
}

std::optional<int> EpochsToTarget(std::span<const double> objectives, double target) {
  for (std::size_t e = 0; e < objectives.size(); ++e) {
    if (objectives[e] <= target) return static_cast<int>(e + 1);
  }
  return std::nullopt;
}

std::optional<double> SecondsToEpoch(std::span<const std::optional<double>> epoch_seconds,
                                     int epochs) {
  if (epochs < 0 || static_cast<std::size_t>(epochs) > epoch_seconds.size()) return std::nullopt;
  double sum = 0;
  for (int e = 0; e < epochs; ++e) {
    if (!epoch_seconds[e]) return std::nullopt;
    sum += *epoch_seconds[e];
  }
  return sum;
}

}  // namespace parsgd::compare
