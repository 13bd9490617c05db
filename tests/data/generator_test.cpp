#include "parsgd/data/generator.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::ExpectError;

GeneratorParams SmallParams() {
  GeneratorParams p;
  p.rows = 20000;
  p.features = 5000;
  p.nnz_per_row = 30;
  p.label_noise = 0;
  return p;
}

uint64_t Positives(const Dataset& d) {
  return std::count(d.labels().begin(), d.labels().end(), 1.f);
}

TEST(Generator, SameParamsGiveTheSameBytesAtAnyThreadCount) {
  testing::TempDir dir;
  const GeneratorParams p = SmallParams();
  tbb::task_arena(1).execute([&] { WriteBinaryCache(GenerateSparse(p), dir.File("1.bin")); });
  tbb::task_arena(2).execute([&] { WriteBinaryCache(GenerateSparse(p), dir.File("2.bin")); });
  EXPECT_EQ(testing::ReadFile(dir.File("1.bin")), testing::ReadFile(dir.File("2.bin")));
}

TEST(Generator, DifferentSeedsGiveDifferentData) {
  GeneratorParams p = SmallParams();
  p.rows = 100;
  const Dataset a = GenerateSparse(p);
  p.seed = 2;
  const Dataset b = GenerateSparse(p);
  EXPECT_FALSE(testing::SameBytes(a.indices(), b.indices()) &&
               testing::SameBytes(a.values(), b.values()));
}

TEST(Generator, RowsAreSortedUnitNormAndPositive) {
  const Dataset d = GenerateSparse(SmallParams());
  ASSERT_EQ(d.rows(), 20000u);
  ASSERT_EQ(d.features(), 5000u);
  for (uint64_t i = 0; i < d.rows(); ++i) {
    const SparseRow row = d.row(i);
    ASSERT_GE(row.nnz, 1u);
    double norm2 = 0;
    for (uint32_t k = 0; k < row.nnz; ++k) {
      ASSERT_LT(row.index[k], d.features());
      if (k > 0) {
        ASSERT_GT(row.index[k], row.index[k - 1]) << "row " << i;
      }
      ASSERT_GT(row.value[k], 0.f);
      norm2 += double{row.value[k]} * row.value[k];
    }
    ASSERT_NEAR(std::sqrt(norm2), 1.0, 1e-5) << "row " << i;
  }
}

TEST(Generator, MeanNonzerosIsNearTheRequestedMean) {
  const GeneratorParams p = SmallParams();
  const Dataset d = GenerateSparse(p);
  // Per row: mean * U[1/2, 3/2) plus rounding noise: variance mean^2 / 12 + at most 1/4.
  const double sigma = std::sqrt((p.nnz_per_row * p.nnz_per_row / 12 + 0.25) / p.rows);
  EXPECT_NEAR(static_cast<double>(d.nnz()) / d.rows(), p.nnz_per_row, 5 * sigma);
}

TEST(Generator, FeatureFrequenciesAreSkewedAndSpreadOverTheIndexRange) {
  const GeneratorParams p = SmallParams();
  const Dataset d = GenerateSparse(p);
  std::vector<uint64_t> count(p.features, 0);
  for (uint32_t j : d.indices()) ++count[j];
  std::vector<uint32_t> by_count(p.features);
  for (uint32_t j = 0; j < p.features; ++j) by_count[j] = j;
  std::sort(by_count.begin(), by_count.end(),
            [&](uint32_t a, uint32_t b) { return count[a] > count[b]; });
  // Zipf(1): the top feature is in most rows, the median one in few.
  EXPECT_GT(count[by_count[0]], p.rows / 2);
  EXPECT_GT(count[by_count[0]], 50 * count[by_count[p.features / 2]]);
  // The permutation spreads hot features: the top 20 are not all in the first tenth.
  EXPECT_TRUE(std::any_of(by_count.begin(), by_count.begin() + 20,
                          [&](uint32_t j) { return j >= p.features / 10; }));
}

TEST(Generator, NoiselessClassesAreExactlyBalanced) {
  GeneratorParams p = SmallParams();
  p.rows = 20001;
  const Dataset d = GenerateSparse(p);
  EXPECT_EQ(Positives(d), p.rows - p.rows / 2);
}

TEST(Generator, NoiseFlipsLabelsAtTheRequestedRateAndLeavesRowsAlone) {
  GeneratorParams p = SmallParams();
  const Dataset clean = GenerateSparse(p);
  p.label_noise = 0.1;
  const Dataset noisy = GenerateSparse(p);
  EXPECT_TRUE(testing::SameBytes(clean.indices(), noisy.indices()));
  EXPECT_TRUE(testing::SameBytes(clean.values(), noisy.values()));
  uint64_t flipped = 0;
  for (uint64_t i = 0; i < p.rows; ++i) flipped += clean.label(i) != noisy.label(i);
  const double n = static_cast<double>(p.rows);
  const double q = p.label_noise;
  // Binomial(n, q) flips; positives = n/2 - Bin(n/2, q) + Bin(n/2, q), variance n q (1 - q).
  EXPECT_NEAR(flipped / n, q, 5 * std::sqrt(q * (1 - q) / n));
  EXPECT_NEAR(static_cast<double>(Positives(noisy)), n / 2, 5 * std::sqrt(n * q * (1 - q)));
}

// Averaged perceptron with a bias (Freund and Schapire 1999): training accuracy after `epochs`.
double PerceptronAccuracy(const Dataset& d, int epochs) {
  std::vector<double> w(d.features() + 1, 0.0), sum(d.features() + 1, 0.0);
  const uint64_t bias = d.features();
  double step = 0;
  auto margin = [&](const std::vector<double>& v, uint64_t i) {
    double m = v[bias];
    const SparseRow row = d.row(i);
    for (uint32_t k = 0; k < row.nnz; ++k) m += v[row.index[k]] * row.value[k];
    return m;
  };
  for (int e = 0; e < epochs; ++e) {
    for (uint64_t i = 0; i < d.rows(); ++i, ++step) {
      if (margin(w, i) * d.label(i) > 0) continue;
      // w += y x now; sum keeps sum over steps of w via the (T - t) weighting trick.
      const SparseRow row = d.row(i);
      for (uint32_t k = 0; k < row.nnz; ++k) {
        w[row.index[k]] += d.label(i) * row.value[k];
        sum[row.index[k]] -= step * d.label(i) * row.value[k];
      }
      w[bias] += d.label(i);
      sum[bias] -= step * d.label(i);
    }
  }
  for (std::size_t j = 0; j < w.size(); ++j) sum[j] = w[j] * step + sum[j];
  uint64_t right = 0;
  for (uint64_t i = 0; i < d.rows(); ++i) right += margin(sum, i) * d.label(i) > 0;
  return static_cast<double>(right) / d.rows();
}

TEST(Generator, NoiselessLabelsAreLearnableByALinearModel) {
  // Labels are sign(w.x - median): a linear rule with a bias separates them exactly, so a
  // perceptron fits nearly all of them (0.995 seen with this seed).
  GeneratorParams p = SmallParams();
  p.rows = 5000;
  EXPECT_GT(PerceptronAccuracy(GenerateSparse(p), 20), 0.95);
}

TEST(Generator, SteepZipfWithRowsAsWideAsTheFeaturesStillCompletes) {
  GeneratorParams p;
  p.rows = 200;
  p.features = 40;
  p.nnz_per_row = 40;
  p.zipf = 4;
  const Dataset d = GenerateSparse(p);  // the exact fallback draws most of each row
  for (uint64_t i = 0; i < d.rows(); ++i) {
    const SparseRow row = d.row(i);
    for (uint32_t k = 1; k < row.nnz; ++k) ASSERT_GT(row.index[k], row.index[k - 1]);
    ASSERT_LE(row.nnz, 40u);
  }
  p.zipf = 0;  // uniform
  EXPECT_EQ(GenerateSparse(p).features(), 40u);
}

TEST(Generator, RejectsBadParamsNamingTheField) {
  auto with = [](auto change) {
    GeneratorParams p = SmallParams();
    change(p);
    return p;
  };
  const std::pair<GeneratorParams, const char*> cases[] = {
      {with([](auto& p) { p.rows = 0; }), "rows"},
      {with([](auto& p) { p.features = 0; }), "features"},
      {with([](auto& p) { p.nnz_per_row = 0.5; }), "nnz (mean nonzeros per row)"},
      {with([](auto& p) { p.nnz_per_row = 5001; }),
       "nnz (mean nonzeros per row) must be in [1, features = 5000]"},
      {with([](auto& p) { p.zipf = -1; }), "zipf"},
      {with([](auto& p) { p.label_noise = 0.6; }), "noise (the fraction of labels flipped)"},
      {with([](auto& p) { p.label_noise = std::nan(""); }), "noise"},
      {with([](auto& p) { p.weight_density = 0; }), "density (the fraction of features"},
      {with([](auto& p) { p.weight_density = 1.5; }), "density"},
  };
  for (const auto& [params, field] : cases) {
    SCOPED_TRACE(field);
    ExpectError([&] { GenerateSparse(params); }, {"generator: ", field});
  }
}

}  // namespace
}  // namespace parsgd
