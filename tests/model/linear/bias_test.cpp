// --bias off: the linear models' problem without a bias (LIBLINEAR's default). Every scheme keeps
// the bias at exactly 0 and reaches that problem's optimum, which a trained bias would undercut.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/rng.hpp"
#include "reference_solver.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// Rows whose labels follow w.x + 1.5: the best model with a bias is far from the best without one.
Dataset OffsetProblem() {
  Rng rng(11);
  constexpr uint32_t kFeatures = 40;
  std::vector<double> hidden(kFeatures);
  for (double& w : hidden) w = rng.Normal();
  std::vector<testing::Entries> rows(1500);
  std::vector<float> labels(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double z = 1.5;
    for (uint32_t j = 0; j < kFeatures; ++j) {
      if (rng.UniformDouble() > 0.2) continue;
      const float v = static_cast<float>(rng.UniformDouble() - 0.5);
      rows[i].push_back({j, v});
      z += v * hidden[j];
    }
    labels[i] = z > 0 ? 1.f : -1.f;
  }
  return testing::MakeDataset(rows, labels, kFeatures, "offset");
}

std::vector<float> Targets(const Dataset& data) {
  return testing::TargetValues(ModelKind::kLogistic, data);
}

constexpr double kL2 = 0.01;

class BiasOff : public ::testing::TestWithParam<std::tuple<SchemeKind, int, int>> {};

TEST_P(BiasOff, EverySchemeHoldsTheBiasAtZeroAndReachesTheOptimumWithoutIt) {
  auto [scheme, threads, batch] = GetParam();
  static const Dataset data = OffsetProblem();
  static const auto with =
      testing::SolveReference(ModelKind::kLogistic, data, Targets(data), 1, kL2, 3000);
  static const auto without = testing::SolveReference(ModelKind::kLogistic, data, Targets(data), 1,
                                                      kL2, 3000, /*bias=*/false);
  // The test can fail: a trained bias would end well below the optimum without one.
  ASSERT_LT(with.objective, without.objective * 0.95);
  TrainConfig c;
  c.scheme = scheme;
  c.threads = threads;
  c.batch = batch;
  c.epochs = 40;
  c.l2 = kL2;
  c.bias = Bias::kOff;
  auto executor = MakeTbbExecutor(threads);
  Trainer trainer(c, data, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < c.epochs; ++e) last = trainer.RunEpoch();
  EXPECT_EQ(trainer.model().bias()[0], 0.f);
  EXPECT_GE(last.objective, without.objective * (1 - 1e-6));
  EXPECT_LE(last.objective, without.objective * 1.01);
  // The run says what it solved, and only where it differs from a run before the setting existed.
  EXPECT_TRUE(testing::Contains(trainer.RunIdentity(), "\nbias=off\n")) << trainer.RunIdentity();
}

INSTANTIATE_TEST_SUITE_P(Schemes, BiasOff,
                         ::testing::Values(std::make_tuple(SchemeKind::kSequential, 1, 0),
                                           std::make_tuple(SchemeKind::kSequential, 1, 16),
                                           std::make_tuple(SchemeKind::kHogwild, 2, 0),
                                           std::make_tuple(SchemeKind::kSync, 2, 16),
                                           std::make_tuple(SchemeKind::kAverage, 2, 8),
                                           std::make_tuple(SchemeKind::kAverage, 2, 1),
                                           std::make_tuple(SchemeKind::kGossip, 2, 8)),
                         [](const auto& info) {
                           return testing::Name(std::get<0>(info.param)) + "Batch" +
                                  std::to_string(std::get<2>(info.param));
                         });

TEST(Bias, OnIsTheRunAsBefore) {
  const Dataset data = OffsetProblem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.epochs = 3;
  Trainer trainer(c, data, nullptr, *executor);
  for (int e = 0; e < c.epochs; ++e) trainer.RunEpoch();
  EXPECT_GT(trainer.model().bias()[0], 0.1f);  // the offset, learned
  EXPECT_FALSE(testing::Contains(trainer.RunIdentity(), "bias="));
}

TEST(Bias, OffIsRefusedWhereItDoesNotApply) {
  using testing::Refusal;
  TrainConfig mlp;
  mlp.model = ModelKind::kMlp;
  mlp.bias = Bias::kOff;
  EXPECT_TRUE(testing::Contains(Refusal(mlp), "bias off applies to the linear models"))
      << Refusal(mlp);
  TrainConfig offload;
  offload.backend = Backend::kOffload;
  offload.bias = Bias::kOff;
  EXPECT_TRUE(testing::Contains(Refusal(offload), "bias off runs on the cpu backend"))
      << Refusal(offload);
}

TEST(Bias, AStartModelWithABiasDoesNotFitARunWithout) {
  const Dataset data = OffsetProblem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.epochs = 2;
  Trainer first(c, data, nullptr, *executor);
  for (int e = 0; e < c.epochs; ++e) first.RunEpoch();
  ASSERT_NE(first.model().bias()[0], 0.f);
  c.bias = Bias::kOff;
  Trainer second(c, data, nullptr, *executor);
  try {
    second.StartFrom(first.model());
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "bias: start model trained (not 0), this run off"))
        << e.what();
  }
}

}  // namespace
}  // namespace parsgd
