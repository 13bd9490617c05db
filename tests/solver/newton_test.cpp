// --solver newton: Newton steps with their directions by conjugate gradients, X^T u summed by
// column or by rows (NewtonSumsByRows). Each smooth loss, with and without the bias, on data of
// either kind, reaches the reference optimum in a few dozen steps at most; the objective falls
// every step; the result is the same bits on any number of threads; a resumed run is the straight
// one and a run can start from a model; the default stopping rule ends the run near the optimum;
// and it refuses what it does not solve.
#include <gtest/gtest.h>

#include <vector>

#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "reference_solver.hpp"
#include "solver/solvers.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr double kL2 = 0.01;

TrainConfig Newton(int threads, int epochs, ModelKind model, Bias bias = Bias::kOff) {
  TrainConfig c;
  c.model = model;
  c.solver = Solver::kNewton;
  c.bias = bias;
  c.threads = threads;
  c.epochs = epochs;
  c.l2 = kL2;
  c.tol = 0;  // every epoch
  return c;
}

// Positive features in [0.5, 1.5] (a bias matters), a little label noise. Problem's 30 features
// hold few nonzeros each: X^T u is summed by column; Narrow's 10 hold many: by rows, in each row
// block's accumulators.
const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(1200, 30, 8, 2, 0.05, 17);
  return data;
}
const Dataset& Narrow() {
  static const Dataset data = testing::MakeProblem(3000, 10, 8, 2, 0.05, 19);
  return data;
}

TEST(Newton, SumsByRowsWhereTheFeaturesAreFewAgainstTheNonzeros) {
  EXPECT_FALSE(NewtonSumsByRows(Problem().features(), Problem().nnz()));
  EXPECT_TRUE(NewtonSumsByRows(Narrow().features(), Narrow().nnz()));
}

class NewtonLosses : public ::testing::TestWithParam<ModelKind> {};

TEST_P(NewtonLosses, ReachTheReferenceOptimumWithAndWithoutTheBiasInFewSteps) {
  const ModelKind model = GetParam();
  for (const Dataset* set : {&Problem(), &Narrow()}) {
    const Dataset& data = *set;
    const std::vector<float> y = testing::TargetValues(model, data);
    for (const Bias bias : {Bias::kOff, Bias::kOn}) {
      const auto reference =
          testing::SolveReference(model, data, y, 1, kL2, 3000, bias == Bias::kOn);
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(testing::Name(model) + " bias " + std::to_string(int(bias)) + ", " +
                     std::to_string(threads) + " threads");
        auto executor = MakeTbbExecutor(threads);
        TrainConfig c = Newton(threads, 100, model, bias);
        c.tol = 1e-9;
        Trainer trainer(c, data, nullptr, *executor);
        const RunLoopResult r = RunEpochs(trainer, {}, [](const EpochReport&, double) {});
        EXPECT_TRUE(r.last.converged);
        EXPECT_LE(r.last.epoch, 30u);
        EXPECT_NEAR(r.last.objective, reference.objective, 1e-6 * reference.objective);
        EXPECT_EQ(r.last.updates, data.rows());
        EXPECT_EQ(trainer.model().bias()[0] != 0.f, bias == Bias::kOn);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Losses, NewtonLosses,
                         ::testing::Values(ModelKind::kLogistic, ModelKind::kSquaredHinge,
                                           ModelKind::kSquared),
                         [](const auto& info) { return testing::Name(info.param); });

TEST(Newton, LowersTheObjectiveEveryStepAndGivesTheSameBitsOnAnyThreadCount) {
  for (const Dataset* set : {&Problem(), &Narrow()}) {
    const Dataset& data = *set;
    for (const Bias bias : {Bias::kOff, Bias::kOn}) {
      std::vector<LinearModel> models;
      for (const int threads : {1, 2, 3}) {
        auto executor = MakeTbbExecutor(threads);
        Trainer trainer(Newton(threads, 6, ModelKind::kLogistic, bias), data, nullptr, *executor);
        double before = trainer.RunEpoch().objective;
        for (int e = 1; e < 6; ++e) {
          const double after = trainer.RunEpoch().objective;
          // At the optimum (Narrow's, within 5 steps) a step moves the float weights by their
          // rounding only.
          EXPECT_LE(after, before * (1 + 1e-7)) << "epoch " << e + 1;
          before = after;
        }
        EXPECT_EQ(trainer.settings().scheme, SchemeKind::kSync);
        models.push_back(trainer.model());
      }
      EXPECT_TRUE(testing::SameBits(models[0], models[1])) << int(bias);
      EXPECT_TRUE(testing::SameBits(models[0], models[2])) << int(bias);
    }
  }
}

TEST(Newton, AResumedRunIsTheStraightRunAndARunCanStartFromAModel) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(2);
  const TrainConfig c = Newton(2, 4, ModelKind::kSquaredHinge, Bias::kOn);
  Trainer straight(c, data, nullptr, *executor);
  for (int e = 0; e < 4; ++e) straight.RunEpoch();
  Trainer first(c, data, nullptr, *executor);
  for (int e = 0; e < 2; ++e) first.RunEpoch();
  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(first.Snapshot());
  for (int e = 0; e < 2; ++e) resumed.RunEpoch();
  EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model()));
  EXPECT_TRUE(testing::Contains(straight.RunIdentity(), "\nsolver=newton\n"));
  const double before = straight.RunEpoch().objective;
  Trainer started(c, data, nullptr, *executor);
  started.StartFrom(straight.model());
  EXPECT_LE(started.RunEpoch().objective, before * (1 + 1e-7));
}

// The default rule (an epoch that lowers the objective by at most 1e-5 of it) ends the run at
// the optimum to far better than the rule's own width, and well before the cap.
TEST(Newton, TheDefaultStoppingRuleEndsNearTheOptimum) {
  const Dataset& data = Problem();
  const std::vector<float> y = testing::TargetValues(ModelKind::kLogistic, data);
  const auto reference = testing::SolveReference(ModelKind::kLogistic, data, y, 1, kL2, 3000, true);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = Newton(1, 0, ModelKind::kLogistic, Bias::kOn);
  c.tol = -1;  // auto
  Trainer trainer(c, data, nullptr, *executor);
  EXPECT_EQ(trainer.settings().epochs, 1000);
  EXPECT_DOUBLE_EQ(trainer.settings().tol, 1e-5);
  const RunLoopResult r = RunEpochs(trainer, {}, [](const EpochReport&, double) {});
  EXPECT_TRUE(r.last.converged);
  EXPECT_LT(r.last.epoch, 30u);
  EXPECT_NEAR(r.last.objective, reference.objective, 1e-6 * reference.objective);
}

TEST(Newton, RefusesWhatItDoesNotSolve) {
  using testing::Refusal;
  const TrainConfig c = Newton(0, 0, ModelKind::kLogistic);
  EXPECT_EQ(Refusal(c), "");
  TrainConfig bias = c;
  bias.bias = Bias::kOn;
  EXPECT_EQ(Refusal(bias), "");
  TrainConfig hinge = c;
  hinge.model = ModelKind::kHinge;
  EXPECT_TRUE(testing::Contains(
      Refusal(hinge), "solver newton trains model squared, squared-hinge and logistic; not hinge"))
      << Refusal(hinge);
  TrainConfig hogwild = c;
  hogwild.scheme = SchemeKind::kHogwild;
  EXPECT_TRUE(testing::Contains(Refusal(hogwild), "solver newton runs under the schemes sync; not "
                                                  "hogwild"))
      << Refusal(hogwild);
  TrainConfig l1 = c;
  l1.l1 = 0.01;
  EXPECT_TRUE(testing::Contains(Refusal(l1), "this run's is newton")) << Refusal(l1);
  TrainConfig workers = c;
  workers.scheme = SchemeKind::kSync;
  workers.workers = 4;
  EXPECT_TRUE(testing::Contains(Refusal(workers), "this run's is newton")) << Refusal(workers);
  TrainConfig batch = c;
  batch.batch = 8;
  EXPECT_TRUE(testing::Contains(Refusal(batch), "newton steps on the gradient over every row"))
      << Refusal(batch);
  TrainConfig adam = c;
  adam.optimizer.kind = OptimizerKind::kAdam;
  EXPECT_TRUE(testing::Contains(Refusal(adam), "takes Newton steps: optimizer adam does not apply"))
      << Refusal(adam);
  TrainConfig offload = c;
  offload.backend = Backend::kOffload;
  EXPECT_NE(Refusal(offload), "");
}

}  // namespace
}  // namespace parsgd
