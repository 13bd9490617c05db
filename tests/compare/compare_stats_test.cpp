// The statistics of `parsgd compare` on inputs whose answers are known in closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "stats.hpp"

namespace parsgd::compare {
namespace {

TEST(CompareStats, SummaryIsMeanSampleStdAndSem) {
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = Summarize(v);
  EXPECT_EQ(s.n, 8);
  EXPECT_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(32.0 / 7));  // divisor n - 1
  EXPECT_DOUBLE_EQ(s.sem, std::sqrt(32.0 / 7) / std::sqrt(8.0));
}

// The same values in another order (runs finishing in another order) give the same summary to
// the last bit, though their sums in the given orders differ.
TEST(CompareStats, TheSameValuesInAnyOrderGiveTheSameSummary) {
  std::vector<double> v = {0.1, 1e8, 0.2, 0.3, -1e8, 1e-9, 0.7, 0.14316635993770518, 3.3};
  const Summary first = Summarize(v);
  bool sums_differ = false;
  double first_sum = 0;
  for (double x : v) first_sum += x;
  std::sort(v.begin(), v.end());
  do {
    double sum = 0;
    for (double x : v) sum += x;
    sums_differ |= sum != first_sum;
    const Summary s = Summarize(v);
    ASSERT_EQ(s.mean, first.mean);
    ASSERT_EQ(s.std, first.std);
    ASSERT_EQ(s.min, first.min);
    ASSERT_EQ(s.max, first.max);
  } while (std::next_permutation(v.begin(), v.end()));
  EXPECT_TRUE(sums_differ);  // the order matters to a plain sum of these values
}

TEST(CompareStats, SpreadOfFewerThanTwoValuesIsUndefined) {
  const std::vector<double> one = {3.5};
  const Summary s = Summarize(one);
  EXPECT_EQ(s.n, 1);
  EXPECT_EQ(s.mean, 3.5);
  EXPECT_TRUE(std::isnan(s.std));
  EXPECT_TRUE(std::isnan(s.sem));
  const Summary none = Summarize(std::vector<double>{});
  EXPECT_EQ(none.n, 0);
  EXPECT_TRUE(std::isnan(none.mean));
}

TEST(CompareStats, IncompleteBetaMatchesClosedForms) {
  for (double x : {0.0, 0.1, 0.37, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 1, x), x, 1e-14) << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(3, 1, x), x * x * x, 1e-14) << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 4, x), 1 - std::pow(1 - x, 4), 1e-14) << x;
  }
  EXPECT_NEAR(RegularizedIncompleteBeta(7.5, 7.5, 0.5), 0.5, 1e-14);  // symmetric
}

// Student's t with 1 degree of freedom is Cauchy, with 2 it has a closed-form CDF.
TEST(CompareStats, StudentPValueMatchesClosedForms) {
  for (double t : {0.0, 0.3, 1.0, 2.5, 12.0}) {
    EXPECT_NEAR(StudentTwoSidedP(t, 1), 1 - 2 / std::numbers::pi * std::atan(t), 1e-13) << t;
    EXPECT_NEAR(StudentTwoSidedP(-t, 1), StudentTwoSidedP(t, 1), 1e-15) << t;
    EXPECT_NEAR(StudentTwoSidedP(t, 2), 1 - t / std::sqrt(2 + t * t), 1e-13) << t;
  }
  // The 97.5% quantile of t with 10 degrees of freedom (tables: 2.228138851986).
  EXPECT_NEAR(StudentTwoSidedP(2.228138851986, 10), 0.05, 1e-11);
  EXPECT_EQ(StudentTwoSidedP(0, 7.3), 1.0);
  EXPECT_EQ(StudentTwoSidedP(INFINITY, 3), 0.0);
}

// p = 1 - 2 * integral of the t density from 0 to |t| (Simpson's rule, independent of the code).
double IntegratedP(double t, double df) {
  const double c =
      std::exp(std::lgamma((df + 1) / 2) - std::lgamma(df / 2)) / std::sqrt(df * std::numbers::pi);
  auto density = [&](double x) { return c * std::pow(1 + x * x / df, -(df + 1) / 2); };
  const int n = 20000;
  const double h = std::fabs(t) / n;
  double sum = density(0) + density(std::fabs(t));
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * density(i * h);
  return 1 - 2 * sum * h / 3;
}

TEST(CompareStats, WelchTestOnKnownSamples) {
  // a: mean 2.5, variance 5/3; b: mean 6, variance 10.
  const std::vector<double> a = {1, 2, 3, 4}, b = {2, 4, 6, 8, 10};
  const auto w = WelchTest(Summarize(a), Summarize(b));
  ASSERT_TRUE(w.has_value());
  // t = (2.5 - 6) / sqrt(5/12 + 10/5); df = (29/12)^2 / ((5/12)^2 / 3 + 2^2 / 4) = 2523/457.
  EXPECT_NEAR(w->t, -3.5 / std::sqrt(29.0 / 12), 1e-14);
  EXPECT_NEAR(w->df, 2523.0 / 457, 1e-12);
  EXPECT_NEAR(w->p, IntegratedP(w->t, w->df), 1e-10);
  const auto reverse = WelchTest(Summarize(b), Summarize(a));
  EXPECT_NEAR(reverse->t, -w->t, 1e-15);
  EXPECT_NEAR(reverse->p, w->p, 1e-15);
}

TEST(CompareStats, WelchTestWithoutSpreadOrWithoutRepeats) {
  const std::vector<double> ones = {1, 1}, twos = {2, 2, 2}, one = {1};
  const auto differ = WelchTest(Summarize(ones), Summarize(twos));
  ASSERT_TRUE(differ.has_value());
  EXPECT_EQ(differ->p, 0.0);
  EXPECT_TRUE(std::isinf(differ->t) && differ->t < 0);
  const auto same = WelchTest(Summarize(ones), Summarize(ones));
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->p, 1.0);
  EXPECT_FALSE(WelchTest(Summarize(one), Summarize(twos)).has_value());
}

TEST(CompareStats, TimeToTargetIsTheFirstEpochAtOrBelowIt) {
  const std::vector<double> objective = {0.5, 0.3, 0.2, 0.25};
  EXPECT_EQ(EpochsToTarget(objective, 0.3), 2);  // "at or below": 0.3 counts
  EXPECT_EQ(EpochsToTarget(objective, 0.29), 3);
  EXPECT_EQ(EpochsToTarget(objective, 0.9), 1);
  EXPECT_FALSE(EpochsToTarget(objective, 0.1).has_value());
  const std::vector<std::optional<double>> seconds = {0.5, 0.25, 0.125, 1.0};
  EXPECT_EQ(SecondsToEpoch(seconds, 2), 0.75);  // training time up to the end of epoch 2
  EXPECT_EQ(SecondsToEpoch(seconds, 0), 0.0);
  EXPECT_FALSE(SecondsToEpoch(seconds, 5).has_value());
  const std::vector<std::optional<double>> untimed = {0.5, std::nullopt};
  EXPECT_EQ(SecondsToEpoch(untimed, 1), 0.5);
  EXPECT_FALSE(SecondsToEpoch(untimed, 2).has_value());
}

}  // namespace
}  // namespace parsgd::compare
