// The sparse kernels' vector paths against the scalar path (parsgd/kernel/sparse_kernels.hpp):
// the steps and the K-score kernels give the same bits, the one-score dot product agrees within
// its rounding bound, and the linear step takes the vector path exactly where it applies. A path
// this CPU lacks is skipped.
#include "parsgd/kernel/sparse_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr uint32_t kFeatures = 5000;

struct Row {
  std::vector<uint32_t> index;
  std::vector<float> value;
  SparseRow View() const {
    return {index.data(), value.data(), static_cast<uint32_t>(index.size())};
  }
};

// n distinct ascending indices below kFeatures, values in [-2, 2).
Row RandomRow(Rng& rng, uint32_t n) {
  Row r;
  std::vector<char> taken(kFeatures, 0);
  while (r.index.size() < n) {
    const auto j = static_cast<uint32_t>(rng.Uniform(kFeatures));
    if (!taken[j]) {
      taken[j] = 1;
      r.index.push_back(j);
    }
  }
  std::sort(r.index.begin(), r.index.end());
  for (uint32_t e = 0; e < n; ++e) {
    r.value.push_back(static_cast<float>(4 * rng.UniformDouble() - 2));
  }
  return r;
}

std::vector<float> RandomWeights(Rng& rng, uint64_t size) {
  std::vector<float> w(size);
  for (float& x : w) x = static_cast<float>(2 * rng.UniformDouble() - 1);
  return w;
}

std::vector<FeatureRate> RandomRates(Rng& rng) {
  std::vector<FeatureRate> rates(kFeatures);
  for (FeatureRate& r : rates) {
    r.step_scale = static_cast<float>(0.1 + rng.UniformDouble());
    r.shrink_rate = static_cast<float>(rng.UniformDouble() * 0.5);
  }
  return rates;
}

// Row lengths around every vector width and tail: 0 to 70, and long rows.
std::vector<uint32_t> Lengths() {
  std::vector<uint32_t> n;
  for (uint32_t k = 0; k <= 70; ++k) n.push_back(k);
  for (uint32_t k : {127u, 128u, 129u, 1000u, 4999u}) n.push_back(k);
  return n;
}

class VectorPath : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (!CpuSupports(GetParam())) GTEST_SKIP() << "this CPU has no " << IsaName(GetParam());
  }
};

TEST_P(VectorPath, DotAgreesWithTheScalarPathWithinItsRoundingBound) {
  Rng rng(11);
  const std::vector<float> w = RandomWeights(rng, kFeatures);
  for (uint32_t n : Lengths()) {
    const Row r = RandomRow(rng, n);
    double exact = 0, magnitude = 0;
    for (uint32_t e = 0; e < n; ++e) {
      exact += double{r.value[e]} * w[r.index[e]];
      magnitude += std::fabs(double{r.value[e]} * w[r.index[e]]);
    }
    const float vector = SparseDot(GetParam(), w.data(), r.index.data(), r.value.data(), n);
    const float scalar = SparseDot(Isa::kScalar, w.data(), r.index.data(), r.value.data(), n);
    // Each of two float sums errs by at most about n 2^-24 of the magnitude.
    const double bound = 2.0 * (n + 1) * std::ldexp(1.0, -24) * magnitude;
    EXPECT_LE(std::fabs(vector - exact), bound / 2 + 1e-30) << "n " << n;
    EXPECT_LE(std::fabs(vector - scalar), bound + 1e-30) << "n " << n;
    if (n == 0) EXPECT_EQ(vector, 0.f);
  }
}

TEST_P(VectorPath, StepWritesTheScalarPathsBits) {
  Rng rng(12);
  const std::vector<FeatureRate> rates = RandomRates(rng);
  for (const bool with_rates : {false, true}) {
    for (uint32_t n : Lengths()) {
      const Row r = RandomRow(rng, n);
      std::vector<float> scalar = RandomWeights(rng, kFeatures), vector = scalar;
      const float d = static_cast<float>(rng.UniformDouble() - 0.5), eta = 0.37f;
      const FeatureRate* rate = with_rates ? rates.data() : nullptr;
      SgdSparseStep(Isa::kScalar, scalar.data(), r.index.data(), r.value.data(), n, rate, d, eta);
      SgdSparseStep(GetParam(), vector.data(), r.index.data(), r.value.data(), n, rate, d, eta);
      ASSERT_EQ(std::memcmp(scalar.data(), vector.data(), kFeatures * sizeof(float)), 0)
          << "n " << n << (with_rates ? " with rates" : "");
    }
  }
}

// A row scaled into sums (Newton's X^T u): the scalar path's bits.
TEST_P(VectorPath, ScaledAddWritesTheScalarPathsBits) {
  Rng rng(17);
  for (uint32_t n : Lengths()) {
    const Row r = RandomRow(rng, n);
    std::vector<float> scalar = RandomWeights(rng, kFeatures), vector = scalar;
    const auto a = static_cast<float>(rng.UniformDouble() - 0.5);
    SparseScaledAdd(Isa::kScalar, scalar.data(), r.index.data(), r.value.data(), n, a);
    SparseScaledAdd(GetParam(), vector.data(), r.index.data(), r.value.data(), n, a);
    ASSERT_EQ(std::memcmp(scalar.data(), vector.data(), kFeatures * sizeof(float)), 0) << "n " << n;
  }
}

// The linear step on p.isa: its scores within the dot's bound of the scalar path's, and its
// update, given the same gradient, the same bits, bias included; where no vector path applies
// (L1, compare-and-swap writes) the scalar path's bits whatever p.isa says.
TEST_P(VectorPath, LinearStepTakesThePathWhereItAppliesAndAgrees) {
  Rng rng(13);
  const std::vector<FeatureRate> rates = RandomRates(rng);
  const std::vector<float> l1(kFeatures, 1e-3f);
  const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.05f, 1);
  for (int variant = 0; variant < 3; ++variant) {  // plain, with L1, compare-and-swap
    const Row r = RandomRow(rng, 77);
    std::vector<float> scalar = RandomWeights(rng, kFeatures + 1), vector = scalar;
    const float bias = scalar[kFeatures];
    LinearParams ps{{scalar.data(), nullptr, nullptr}, kFeatures, 1, rates.data()};
    LinearParams pv{{vector.data(), nullptr, nullptr}, kFeatures, 1, rates.data()};
    std::vector<float> owed_s(kFeatures + 1, 0.f), owed_v(kFeatures + 1, 0.f);
    if (variant == 1) {
      ps.l1_rates = pv.l1_rates = l1.data();
      ps.arrays.state0 = owed_s.data();
      pv.arrays.state0 = owed_v.data();
    }
    pv.isa = GetParam();
    float zs = 0, zv = 0;
    LinearScores<1>(ps, r.View(), &zs);
    LinearScores<1>(pv, r.View(), &zv);
    EXPECT_NEAR(zv, zs, 1e-5 * (1 + std::fabs(zs)));
    const float d = 0.3f;
    if (variant == 2) {
      LinearUpdate<1, SgdRule, CasWrite, CasWrite>(ps, r.View(), &d, c);
      LinearUpdate<1, SgdRule, CasWrite, CasWrite>(pv, r.View(), &d, c);
    } else {
      LinearUpdate<1, SgdRule, StoreWrite, StoreWrite>(ps, r.View(), &d, c);
      LinearUpdate<1, SgdRule, StoreWrite, StoreWrite>(pv, r.View(), &d, c);
    }
    EXPECT_EQ(std::memcmp(scalar.data(), vector.data(), scalar.size() * sizeof(float)), 0)
        << "variant " << variant;
    EXPECT_NE(vector[kFeatures], bias);  // the bias took its step too
  }
}

// Three epochs of logistic SGD over random rows on the path and on the scalar path: the models
// differ only by the dot products' rounding, carried through the steps.
TEST_P(VectorPath, TrainingOnThePathEndsWhereTheScalarPathEnds) {
  Rng rng(14);
  const std::vector<FeatureRate> rates = RandomRates(rng);
  const std::vector<float> truth = RandomWeights(rng, kFeatures);
  std::vector<Row> rows;
  std::vector<float> targets;
  for (int i = 0; i < 600; ++i) {
    rows.push_back(RandomRow(rng, 1 + static_cast<uint32_t>(rng.Uniform(90))));
    const float score =
        SparseDot(Isa::kScalar, truth.data(), rows.back().index.data(),
                  rows.back().value.data(), static_cast<uint32_t>(rows.back().index.size()));
    targets.push_back(score >= 0 ? 1.f : -1.f);
  }
  std::vector<float> scalar(kFeatures + 1, 0.f), vector = scalar;
  LinearParams ps{{scalar.data(), nullptr, nullptr}, kFeatures, 1, rates.data()};
  LinearParams pv{{vector.data(), nullptr, nullptr}, kFeatures, 1, rates.data()};
  pv.isa = GetParam();
  SequentialScheme scheme;
  float z[1];
  double loss_s = 0, loss_v = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.1f / (1 + epoch), 1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      loss_s += LinearSgdStep<BinaryHead<LogisticLoss>, SgdRule>({}, scheme, ps, rows[i].View(),
                                                                  targets[i], 1.f, c, z);
      loss_v += LinearSgdStep<BinaryHead<LogisticLoss>, SgdRule>({}, scheme, pv, rows[i].View(),
                                                                  targets[i], 1.f, c, z);
    }
  }
  EXPECT_NEAR(loss_v, loss_s, 1e-4 * loss_s);
  float largest = 0, moved = 0;
  for (uint64_t j = 0; j <= kFeatures; ++j) {
    largest = std::max(largest, std::fabs(scalar[j]));
    moved = std::max(moved, std::fabs(scalar[j] - vector[j]));
  }
  EXPECT_GT(largest, 0.1f);
  EXPECT_LE(moved, 1e-4f * largest);
}

// The K-score kernels: scores and step the scalar path's bits, for K around the vector widths.
TEST_P(VectorPath, RowKernelsGiveTheScalarPathsBits) {
  Rng rng(15);
  const std::vector<FeatureRate> rates = RandomRates(rng);
  for (const int k_out : {2, 3, 7, 8, 9, 10, 16, 17, 33}) {
    for (const bool with_rates : {false, true}) {
      for (const uint32_t n : {0u, 1u, 5u, 64u, 300u}) {
        const Row r = RandomRow(rng, n);
        std::vector<float> scalar = RandomWeights(rng, uint64_t{kFeatures} * k_out);
        std::vector<float> vector = scalar;
        std::vector<float> zs = RandomWeights(rng, k_out), zv = zs, d = RandomWeights(rng, k_out);
        RowScores(Isa::kScalar, scalar.data(), r.index.data(), r.value.data(), n, k_out, zs.data());
        RowScores(GetParam(), vector.data(), r.index.data(), r.value.data(), n, k_out, zv.data());
        ASSERT_EQ(std::memcmp(zs.data(), zv.data(), k_out * sizeof(float)), 0)
            << "K " << k_out << " n " << n;
        const FeatureRate* rate = with_rates ? rates.data() : nullptr;
        SgdRowsStep(Isa::kScalar, scalar.data(), r.index.data(), r.value.data(), n, k_out, rate,
                    d.data(), 0.21f);
        SgdRowsStep(GetParam(), vector.data(), r.index.data(), r.value.data(), n, k_out, rate,
                    d.data(), 0.21f);
        ASSERT_EQ(std::memcmp(scalar.data(), vector.data(), scalar.size() * sizeof(float)), 0)
            << "K " << k_out << " n " << n << (with_rates ? " with rates" : "");
      }
    }
  }
}

// Softmax SGD with its L2 rates, two epochs on the path and on the scalar path, and the Hogwild!
// write policy: the same model, bit for bit.
TEST_P(VectorPath, SoftmaxTrainingOnThePathGivesTheScalarPathsModel) {
  Rng rng(16);
  const std::vector<FeatureRate> rates = RandomRates(rng);
  constexpr int kClasses = 10;
  std::vector<Row> rows;
  for (int i = 0; i < 300; ++i) rows.push_back(RandomRow(rng, 1 + static_cast<uint32_t>(i % 80)));
  std::vector<float> scalar((kFeatures + 1) * kClasses, 0.f), vector = scalar;
  LinearParams ps{{scalar.data(), nullptr, nullptr}, kFeatures, kClasses, rates.data()};
  LinearParams pv{{vector.data(), nullptr, nullptr}, kFeatures, kClasses, rates.data()};
  pv.isa = GetParam();
  HogwildScheme scheme;
  std::vector<float> z(kClasses);
  for (int epoch = 0; epoch < 2; ++epoch) {
    const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.2f / (1 + epoch), 1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto target = static_cast<float>(i % kClasses);
      LinearSgdStep<SoftmaxHead, SgdRule>({}, scheme, ps, rows[i].View(), target, 1.f, c,
                                          z.data());
      LinearSgdStep<SoftmaxHead, SgdRule>({}, scheme, pv, rows[i].View(), target, 1.f, c,
                                          z.data());
    }
  }
  EXPECT_NE(scalar[kFeatures * kClasses], 0.f);  // the biases moved
  EXPECT_EQ(std::memcmp(scalar.data(), vector.data(), scalar.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Isas, VectorPath, ::testing::Values(Isa::kAvx2, Isa::kAvx512),
                         [](const auto& info) { return std::string(IsaName(info.param)); });

TEST(Isa, TheCpusWidestPathIsSupportedAndScalarAlways) {
  EXPECT_TRUE(CpuSupports(Isa::kScalar));
  EXPECT_TRUE(CpuSupports(CpuIsa()));
  // avx512 implies avx2.
  if (CpuSupports(Isa::kAvx512)) EXPECT_TRUE(CpuSupports(Isa::kAvx2));
  for (Isa isa : kIsas) {
    if (CpuSupports(isa)) EXPECT_GE(static_cast<int>(CpuIsa()), static_cast<int>(isa));
  }
}

TEST(Isa, ModelsOf2To31FloatsTakeTheScalarPath) {
  EXPECT_EQ(KernelIsa(Isa::kAvx512, (uint64_t{1} << 31) - 1), Isa::kAvx512);
  EXPECT_EQ(KernelIsa(Isa::kAvx512, uint64_t{1} << 31), Isa::kScalar);
  EXPECT_EQ(KernelIsa(Isa::kAvx2, uint64_t{1} << 40), Isa::kScalar);
}

}  // namespace
}  // namespace parsgd
