#include "parsgd/model/mlp/mlp_engine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

struct Batch {
  std::vector<float> x;
  std::vector<int> labels;
};

Batch RandomBatch(int n, int inputs, int classes, uint64_t seed) {
  Rng rng(seed);
  Batch b;
  for (int i = 0; i < n * inputs; ++i) b.x.push_back(static_cast<float>(rng.Normal()));
  for (int i = 0; i < n; ++i) b.labels.push_back(static_cast<int>(rng.Uniform(classes)));
  return b;
}

// oneDNN against the plain loops: the same forward pass, loss and gradient, to float rounding
// (sums of up to 7 products reordered: relative 1e-5 with margin).
TEST(MlpEngine, OneDnnMatchesTheReference) {
  const std::vector<int> sizes = {7, 5, 4, 3};
  const MlpModel model(sizes, 3);
  auto reference = MakeMlpEngine(MlpBackend::kReference, sizes, 6);
  auto onednn = MakeMlpEngine(MlpBackend::kOneDnn, sizes, 6);
  for (int n : {6, 2, 6}) {  // a full batch, a last partial one, the full shape again
    const Batch b = RandomBatch(n, 7, 3, 10 + n);
    std::vector<float> g_ref(model.params().size()), g_dnn(model.params().size());
    const double l_ref = reference->LossAndGradient(model.params().data(), b.x.data(),
                                                    b.labels.data(), nullptr, n, g_ref.data());
    const double l_dnn = onednn->LossAndGradient(model.params().data(), b.x.data(), b.labels.data(),
                                                 nullptr, n, g_dnn.data());
    EXPECT_NEAR(l_dnn, l_ref, 1e-4 * l_ref);
    for (std::size_t i = 0; i < g_ref.size(); ++i) {
      EXPECT_NEAR(g_dnn[i], g_ref[i], 1e-5 + 1e-4 * std::abs(g_ref[i])) << "parameter " << i;
    }
    std::vector<float> s_ref(n * 3), s_dnn(n * 3);
    reference->Scores(model.params().data(), b.x.data(), n, s_ref.data());
    onednn->Scores(model.params().data(), b.x.data(), n, s_dnn.data());
    for (int i = 0; i < n * 3; ++i)
      EXPECT_NEAR(s_dnn[i], s_ref[i], 1e-5 + 1e-4 * std::abs(s_ref[i]));
  }
}

// A row of weight w is the row repeated w times (0: left out), in both engines: the summed loss is
// the repeated rows', and the gradient of the mean weighted loss over n rows is the repeated rows'
// mean gradient times their count over n.
TEST(MlpEngine, AWeightIsTheRowRepeated) {
  const std::vector<int> sizes = {5, 6, 3};
  MlpModel model(sizes, 8);
  const Batch b = RandomBatch(4, 5, 3, 21);
  const std::vector<float> weights = {2.f, 0.f, 1.f, 3.f};
  Batch repeated;
  for (int i = 0; i < 4; ++i) {
    for (int t = 0; t < static_cast<int>(weights[i]); ++t) {
      repeated.x.insert(repeated.x.end(), b.x.begin() + i * 5, b.x.begin() + (i + 1) * 5);
      repeated.labels.push_back(b.labels[i]);
    }
  }
  const int copies = static_cast<int>(repeated.labels.size());  // 6
  for (MlpBackend backend : {MlpBackend::kReference, MlpBackend::kOneDnn}) {
    SCOPED_TRACE(static_cast<int>(backend));
    auto engine = MakeMlpEngine(backend, sizes, copies);
    std::vector<float> g_weighted(model.params().size()), g_repeated(g_weighted.size());
    const double l_weighted = engine->LossAndGradient(
        model.params().data(), b.x.data(), b.labels.data(), weights.data(), 4, g_weighted.data());
    const double l_repeated =
        engine->LossAndGradient(model.params().data(), repeated.x.data(), repeated.labels.data(),
                                nullptr, copies, g_repeated.data());
    EXPECT_NEAR(l_weighted, l_repeated, 1e-5 * l_repeated);
    for (std::size_t i = 0; i < g_weighted.size(); ++i) {
      const double expected = g_repeated[i] * copies / 4.0;
      EXPECT_NEAR(g_weighted[i], expected, 1e-6 + 1e-4 * std::abs(expected)) << "parameter " << i;
    }
  }
}

// The reference gradient is the derivative of the mean loss: central differences in double over
// float evaluations (h = 1e-2: truncation ~1e-4, rounding ~1e-7 * loss / h ~ 1e-5).
TEST(MlpEngine, GradientMatchesFiniteDifferences) {
  const std::vector<int> sizes = {4, 6, 3};
  MlpModel model(sizes, 5);
  for (float& p : model.params()) p += 0.05f;  // no ReLU exactly at its kink for these inputs
  auto engine = MakeMlpEngine(MlpBackend::kReference, sizes, 5);
  const Batch b = RandomBatch(5, 4, 3, 77);
  std::vector<float> grad(model.params().size()), unused(grad.size());
  engine->LossAndGradient(model.params().data(), b.x.data(), b.labels.data(), nullptr, 5,
                          grad.data());
  for (std::size_t i = 0; i < grad.size(); ++i) {
    std::vector<float> up(model.params().begin(), model.params().end()), down = up;
    up[i] += 1e-2f;
    down[i] -= 1e-2f;
    const double l_up =
        engine->LossAndGradient(up.data(), b.x.data(), b.labels.data(), nullptr, 5, unused.data());
    const double l_down = engine->LossAndGradient(down.data(), b.x.data(), b.labels.data(), nullptr,
                                                  5, unused.data());
    EXPECT_NEAR(grad[i], (l_up - l_down) / 5 / 2e-2, 2e-3) << "parameter " << i;
  }
}

TEST(MlpModel, InitialisationIsSeededAndScaled) {
  const MlpModel a({400, 300, 10}, 1), b({400, 300, 10}, 1), c({400, 300, 10}, 2);
  EXPECT_TRUE(std::equal(a.params().begin(), a.params().end(), b.params().begin()));
  EXPECT_FALSE(std::equal(a.params().begin(), a.params().end(), c.params().begin()));
  const MlpLayer& hidden = a.layers()[0];
  double sum = 0, squares = 0;
  for (uint64_t i = hidden.weights_at; i < hidden.bias_at; ++i) {
    sum += a.params()[i];
    squares += a.params()[i] * a.params()[i];
  }
  const double count = static_cast<double>(hidden.bias_at - hidden.weights_at);
  // He: variance 2 / 400. Over 120,000 draws the sample variance is within 1% (5 sigma).
  EXPECT_NEAR(squares / count, 2.0 / 400, 0.01 * 2.0 / 400);
  EXPECT_NEAR(sum / count, 0.0, 5 * std::sqrt(2.0 / 400 / count));
  for (uint64_t i = hidden.bias_at; i < hidden.bias_at + 300; ++i) EXPECT_EQ(a.params()[i], 0.f);
  EXPECT_EQ(a.params().size(), 400u * 300 + 300 + 300 * 10 + 10);
}

TEST(MlpModel, ParsesHiddenSizes) {
  EXPECT_EQ(ParseHiddenSizes("256,128"), (std::vector<int>{256, 128}));
  EXPECT_EQ(ParseHiddenSizes("64"), (std::vector<int>{64}));
  EXPECT_THROW(ParseHiddenSizes("256,"), Error);
  EXPECT_THROW(ParseHiddenSizes("0"), Error);
  EXPECT_THROW(ParseHiddenSizes("a,b"), Error);
}

}  // namespace
}  // namespace parsgd
