// The linear models' data-derived settings (model/linear/linear_settings.hpp).
#include "model/linear/linear_settings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "parsgd/exec/executor.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// The per-feature statistics are shared out by feature among up to 8 of the executor's threads
// (2^20 nonzeros a worker at least): every feature's sums are still taken in row order, so the
// settings are the same bits at any thread count.
// Two shapes: few features, and more than the 65,536 blocks the ranges are balanced by.
TEST(ResolveLinearSettings, TheSameBitsAtAnyThreadCount) {
  for (const uint32_t features : {3000u, 200000u}) {
    const Dataset data = testing::MakeProblem(60000, features, 60, 2, 0.05, 5);
    ASSERT_GT(data.nnz(), uint64_t{3} << 20);  // enough for three workers
    for (Normalization normalize : {Normalization::kMaxAbs, Normalization::kNone}) {
      TrainConfig c;
      c.model = ModelKind::kLogistic;
      c.scheme = SchemeKind::kSequential;
      c.optimizer.kind = OptimizerKind::kAdam;  // its step comes from the L1 norms
      c.normalize = normalize;
      c.batch = 1;
      const auto one = MakeThreadExecutor(1);
      const LinearSettings expected = ResolveLinearSettings(c, data, *one);
      for (int threads : {2, 3, 8}) {
        const auto executor = MakeThreadExecutor(threads);
        const LinearSettings got = ResolveLinearSettings(c, data, *executor);
        EXPECT_EQ(got.mean_squared_norm, expected.mean_squared_norm) << threads;
        EXPECT_EQ(got.mean_l1_norm, expected.mean_l1_norm) << threads;
        EXPECT_EQ(got.eta0, expected.eta0) << threads;
        EXPECT_EQ(got.l2, expected.l2) << threads;
        ASSERT_EQ(got.rates.size(), expected.rates.size());
        EXPECT_EQ(std::memcmp(got.rates.data(), expected.rates.data(),
                              got.rates.size() * sizeof(FeatureRate)),
                  0)
            << threads;
      }
    }
  }
}

// A feature past 2^60 in magnitude would get a step scale below float's normal range (zero once
// flushed): refused, naming the feature; one just below trains with a normal nonzero scale.
TEST(ResolveLinearSettings, RefusesFeaturesTooLargeForFloatSteps) {
  for (Normalization normalize : {Normalization::kMaxAbs, Normalization::kNone}) {
    TrainConfig c;
    c.model = ModelKind::kLogistic;
    c.scheme = SchemeKind::kSequential;
    c.normalize = normalize;
    const auto executor = MakeThreadExecutor(1);
    const Dataset huge = testing::MakeDataset({{{0, 1.f}, {1, 1e19f}}, {{0, 2.f}}}, {1.f, -1.f}, 2);
    try {
      ResolveLinearSettings(c, huge, *executor);
      ADD_FAILURE() << "a feature of 1e19 was accepted";
    } catch (const Error& e) {
      EXPECT_TRUE(testing::Contains(e.what(), "0-based index 1 has a value of magnitude 1e+19"))
          << e.what();
    }
    const Dataset large =
        testing::MakeDataset({{{0, 1.f}, {1, 1e18f}}, {{0, 2.f}}}, {1.f, -1.f}, 2);
    const LinearSettings s = ResolveLinearSettings(c, large, *executor);
    if (normalize == Normalization::kMaxAbs) {
      EXPECT_TRUE(std::isnormal(s.rates[1].step_scale)) << s.rates[1].step_scale;
    }
  }
}

}  // namespace
}  // namespace parsgd
