// --schedule optimal, scikit-learn SGDClassifier's default rate: the step after t samples is
// 1 / (l2 (t0 + t)) with Bottou's first step 1 / (l2 t0), and plain SGD under it reaches the
// optimum. Its refusals: cli_test.cpp; a run continued for longer: resume_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "data_test_util.hpp"
#include "parsgd/run/trainer.hpp"
#include "reference_solver.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TrainConfig Optimal(ModelKind model, double l2) {
  TrainConfig c;
  c.model = model;
  c.scheme = SchemeKind::kSequential;
  c.schedule = ScheduleKind::kOptimal;
  c.normalize = Normalization::kNone;
  c.l2 = l2;
  c.epochs = 3;
  return c;
}

// Bottou's first step: a weight of the typical size sqrt(1 / sqrt(l2)) over the largest of 1
// and the loss's slope at a score of that size on the wrong side. At l2 = 0.01 the size is
// sqrt(10); the slopes, by hand: logistic 1 / (1 + e^-s) < 1, hinge 1, squared s + 1, squared
// hinge 2 (1 + s).
TEST(OptimalSchedule, FirstStepIsBottousAndTheStepFallsAsOneOverL2T) {
  const double l2 = 0.01, s = std::sqrt(10.0);
  const struct {
    ModelKind model;
    double eta0;
  } cases[] = {{ModelKind::kLogistic, s},
               {ModelKind::kHinge, s},
               {ModelKind::kSquared, s / (s + 1)},
               {ModelKind::kSquaredHinge, s / (2 * (s + 1))},
               {ModelKind::kSoftmax, s}};
  for (const auto& k : cases) {
    const Dataset data =
        testing::MakeProblem(500, 20, 4, k.model == ModelKind::kSoftmax ? 3 : 2, 0.05, 7);
    auto executor = MakeTbbExecutor(1);
    Trainer trainer(Optimal(k.model, l2), data, nullptr, *executor);
    const ResolvedSettings& r = trainer.settings();
    EXPECT_NEAR(r.eta0, k.eta0, 1e-6 * k.eta0) << NameOf<ModelKind>(kModelKinds, k.model);
    const double t0 = 1 / (l2 * r.eta0);
    for (int e = 1; e <= 3; ++e) {
      // The step at an epoch's end: after e * rows samples.
      const double expected = 1 / (l2 * (t0 + e * static_cast<double>(data.rows())));
      EXPECT_NEAR(trainer.RunEpoch().learning_rate, expected, 1e-6 * expected)
          << NameOf<ModelKind>(kModelKinds, k.model) << " epoch " << e;
    }
  }
}

// A given --learning-rate is the first step: t0 = 1 / (l2 eta0).
TEST(OptimalSchedule, AGivenLearningRateIsTheFirstStep) {
  const Dataset data = testing::MakeProblem(400, 20, 4, 2, 0.05, 8);
  TrainConfig c = Optimal(ModelKind::kLogistic, 0.01);
  c.learning_rate = 0.5;
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(c, data, nullptr, *executor);
  const double expected = 1 / (0.01 * (1 / (0.01 * 0.5) + 400.0));
  EXPECT_NEAR(trainer.RunEpoch().learning_rate, expected, 1e-6 * expected);
}

// The same known optimum as trainer_test.cpp's schemes reach with the default schedule (l2 =
// 0.01, 30 epochs, within 1%), per sample under one worker, Hogwild! and per-sample replicas.
TEST(OptimalSchedule, ReachesTheKnownOptimum) {
  const Dataset data = testing::MakeProblem(2000, 60, 8, 2, 0.05, 3);
  const auto reference = testing::SolveReference(
      ModelKind::kLogistic, data, testing::TargetValues(ModelKind::kLogistic, data), 1, 0.01, 2000);
  for (const SchemeKind scheme :
       {SchemeKind::kSequential, SchemeKind::kHogwild, SchemeKind::kAverage}) {
    TrainConfig c = Optimal(ModelKind::kLogistic, 0.01);
    c.scheme = scheme;
    c.threads = 2;
    c.epochs = 30;
    auto executor = MakeTbbExecutor(2);
    Trainer trainer(c, data, nullptr, *executor);
    EXPECT_EQ(trainer.settings().batch, 1) << "optimal steps per sample";
    EpochReport last;
    for (int e = 0; e < c.epochs; ++e) last = trainer.RunEpoch();
    EXPECT_GE(last.objective, reference.objective * (1 - 1e-6));
    EXPECT_LE(last.objective, reference.objective * 1.01)
        << NameOf<SchemeKind>(kSchemeKinds, scheme);
  }
}

}  // namespace
}  // namespace parsgd
