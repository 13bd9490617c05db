// Statistics of repeated runs: mean and sample standard deviation, Welch's t-test, and the time a
// run took to reach a target objective. Pure functions, no state; every cost is O(n).
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace parsgd::compare {

// n values summarised. mean is NaN for n == 0; std (the sample standard deviation, divisor n - 1)
// and sem (std / sqrt(n)) are NaN for n < 2.
struct Summary {
  int n = 0;
  double mean = 0;
  double std = 0;
  double sem = 0;
  double min = 0;  // the smallest and largest value (NaN when n == 0)
  double max = 0;
};
// The values are summed in ascending order (NaN last), so that the same values give the same
// summary, to the last bit, in any order: a grid's runs finish in any order under --jobs, and a
// grid taken up after an interrupt reads the finished runs first.
Summary Summarize(std::span<const double> values);

// Welch's unequal-variance t-test of two samples (Welch 1947): t = (mean_a - mean_b) /
// sqrt(var_a / n_a + var_b / n_b), degrees of freedom by the Welch-Satterthwaite equation, and the
// two-sided p-value from Student's t distribution. nullopt when either sample has fewer than 2
// values. When both variances are 0, the difference is certain or absent: t = +-inf, p = 0 if the
// means differ; t = 0, p = 1 if they are equal (df is then NaN).
struct WelchResult {
  double t = 0;
  double df = 0;
  double p = 1;
};
std::optional<WelchResult> WelchTest(const Summary& a, const Summary& b);

// P(|T| >= |t|) for Student's t distribution with df > 0 degrees of freedom (df need not be an
// integer): the regularised incomplete beta function I_{df/(df+t^2)}(df/2, 1/2), by its continued
// fraction (Lentz's method), accurate to about 1e-14.
double StudentTwoSidedP(double t, double df);

// The regularised incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double RegularizedIncompleteBeta(double a, double b, double x);

// Time to target, by the first-epoch rule (no interpolation: the objective is only known after
// each epoch's evaluation). objectives[e] is the objective after epoch e + 1. Returns the 1-based
// number of the first epoch whose objective is at or below `target`, or nullopt if none is.
std::optional<int> EpochsToTarget(std::span<const double> objectives, double target);

// The training seconds up to the end of epoch `epochs` (1-based): the sum of the first `epochs`
// epoch times. nullopt if any of them is unknown (a --deterministic run records no times).
std::optional<double> SecondsToEpoch(std::span<const std::optional<double>> epoch_seconds,
                                     int epochs);

}  // namespace parsgd::compare
