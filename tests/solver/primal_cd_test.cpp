// --solver cd: primal coordinate descent over a partition of the features. The column layout is the
// rows' transpose; the squared loss reaches the closed-form optimum and the logistic loss the
// reference's (and the dual solver's) under every scheme; one worker of every scheme is the
// sequential solver bit for bit; the deterministic schemes lower the objective every epoch and the
// average scheme gives the same bits run to run; a resumed run is the straight one; a run can start
// from a model; it stops by --tol; and it refuses what it does not solve.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "reference_solver.hpp"
#include "solver/columns.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr double kL2 = 0.01;

TrainConfig Cd(SchemeKind scheme, int threads, int epochs, ModelKind model,
               Bias bias = Bias::kOff) {
  TrainConfig c;
  c.model = model;
  c.solver = Solver::kCd;
  c.bias = bias;
  c.scheme = scheme;
  c.threads = threads;
  c.epochs = epochs;
  c.l2 = kL2;
  c.tol = 0;  // every epoch
  return c;
}

const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(1200, 30, 8, 2, 0.05, 17);
  return data;
}

std::vector<float> Labels(const Dataset& data) {
  return testing::TargetValues(ModelKind::kSquared, data);
}

TEST(Columns, AreTheRowsTransposedWhateverTheThreads) {
  const Dataset& data = Problem();
  for (int threads : {1, 2, 3}) {
    auto executor = MakeTbbExecutor(threads);
    const Columns c = ColumnsOf(data, *executor);
    ASSERT_EQ(c.features(), data.features());
    ASSERT_EQ(c.offsets[data.features()], data.nnz());
    // Every entry of every row, found in its column at the place the rows before it leave.
    std::vector<uint64_t> next(c.offsets.begin(), c.offsets.end() - 1);
    for (uint64_t i = 0; i < data.rows(); ++i) {
      const SparseRow x = data.row(i);
      for (uint32_t e = 0; e < x.nnz; ++e) {
        const uint64_t at = next[x.index[e]]++;
        ASSERT_EQ(c.rows[at], i) << threads << " threads";
        ASSERT_EQ(c.values[at], x.value[e]) << threads << " threads";
      }
    }
    for (uint64_t j = 0; j < data.features(); ++j) EXPECT_EQ(next[j], c.offsets[j + 1]);
  }
}

TEST(Columns, CutsBalanceTheNonzeros) {
  auto executor = MakeTbbExecutor(1);
  const Columns c = ColumnsOf(Problem(), *executor);
  const std::vector<uint64_t> cuts = BalancedCuts(c, 3);
  ASSERT_EQ(cuts.size(), 4u);
  EXPECT_EQ(cuts.front(), 0u);
  EXPECT_EQ(cuts.back(), c.features());
  uint64_t largest = 0;  // no block holds more than a third of the nonzeros plus one column
  for (uint64_t j = 0; j < c.features(); ++j) largest = std::max(largest, c.nnz(j));
  for (int b = 0; b < 3; ++b) {
    ASSERT_LE(cuts[b], cuts[b + 1]);
    EXPECT_LE(c.offsets[cuts[b + 1]] - c.offsets[cuts[b]], c.offsets[c.features()] / 3 + largest);
  }
}

// The squared loss's optimum in closed form: (X^T X / n + l2 I) w = X^T y / n, by Gaussian
// elimination in double; with `bias`, X gains a column of ones whose weight (the bias, last) is not
// regularised.
std::vector<double> SquaredOptimum(const Dataset& data, const std::vector<float>& y, double l2,
                                   bool bias = false) {
  const uint64_t d = data.features() + (bias ? 1 : 0);
  const double n = static_cast<double>(data.rows());
  std::vector<std::vector<double>> a(d, std::vector<double>(d + 1, 0.0));
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const SparseRow x = data.row(i);
    std::vector<std::pair<uint64_t, double>> row;
    for (uint32_t e = 0; e < x.nnz; ++e) row.emplace_back(x.index[e], x.value[e]);
    if (bias) row.emplace_back(d - 1, 1.0);
    for (const auto& [p, vp] : row) {
      for (const auto& [q, vq] : row) a[p][q] += vp * vq / n;
      a[p][d] += vp * y[i] / n;
    }
  }
  for (uint64_t j = 0; j < data.features(); ++j) a[j][j] += l2;
  for (uint64_t k = 0; k < d; ++k) {
    for (uint64_t r = k + 1; r < d; ++r) {
      const double f = a[r][k] / a[k][k];
      for (uint64_t col = k; col <= d; ++col) a[r][col] -= f * a[k][col];
    }
  }
  std::vector<double> w(d);
  for (uint64_t k = d; k-- > 0;) {
    double v = a[k][d];
    for (uint64_t col = k + 1; col < d; ++col) v -= a[k][col] * w[col];
    w[k] = v / a[k][k];
  }
  return w;
}

struct SchemeThreads {
  SchemeKind scheme;
  int threads;
};
constexpr SchemeThreads kRuns[] = {{SchemeKind::kSequential, 1},
                                   {SchemeKind::kHogwild, 2},
                                   {SchemeKind::kAtomic, 2},
                                   {SchemeKind::kAverage, 2}};

TEST(PrimalCd, SquaredLossReachesTheClosedFormOptimumUnderEveryScheme) {
  const Dataset& data = Problem();
  const std::vector<double> best = SquaredOptimum(data, Labels(data), kL2);
  for (const SchemeThreads& r : kRuns) {
    auto executor = MakeTbbExecutor(r.threads);
    // average's safe steps are about 1/K of the others': it takes more epochs.
    const int epochs = r.scheme == SchemeKind::kAverage ? 240 : 60;
    const LinearModel m =
        testing::TrainModel(Cd(r.scheme, r.threads, epochs, ModelKind::kSquared), data, *executor);
    for (uint64_t j = 0; j < data.features(); ++j) {
      EXPECT_NEAR(m.weights()[j], best[j], 1e-4 * (1 + std::abs(best[j])))
          << testing::Name(r.scheme) << ", feature " << j;
    }
    EXPECT_EQ(m.bias()[0], 0.f);
  }
}

// With the bias, on features of one sign (Problem's values are in [0.5, 1.5]): the steps along the
// centred features reach the optimum in as many epochs as without.
TEST(PrimalCd, SquaredLossWithABiasReachesTheClosedFormOptimumUnderEveryScheme) {
  const Dataset& data = Problem();
  const std::vector<double> best = SquaredOptimum(data, Labels(data), kL2, /*bias=*/true);
  ASSERT_GT(std::abs(best.back()), 0.1);  // the bias matters
  for (const SchemeThreads& r : kRuns) {
    auto executor = MakeTbbExecutor(r.threads);
    const int epochs = r.scheme == SchemeKind::kAverage ? 240 : 60;
    SCOPED_TRACE(testing::Name(r.scheme));
    const LinearModel m = testing::TrainModel(
        Cd(r.scheme, r.threads, epochs, ModelKind::kSquared, Bias::kOn), data, *executor);
    for (uint64_t j = 0; j < data.features(); ++j) {
      EXPECT_NEAR(m.weights()[j], best[j], 1e-4 * (1 + std::abs(best[j])))
          << testing::Name(r.scheme) << ", feature " << j;
    }
    EXPECT_NEAR(m.bias()[0], best.back(), 1e-4 * (1 + std::abs(best.back())))
        << testing::Name(r.scheme);
  }
}

class PrimalCdSmooth : public ::testing::TestWithParam<ModelKind> {};

TEST_P(PrimalCdSmooth, WithABiasReachesTheOptimumOfTheReference) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  const auto reference = testing::SolveReference(model, data, Labels(data), 1, kL2, 3000, true);
  const auto without = testing::SolveReference(model, data, Labels(data), 1, kL2, 3000, false);
  ASSERT_LT(reference.objective, without.objective * (1 - 1e-3));  // the bias matters
  for (const SchemeThreads& r : kRuns) {
    auto executor = MakeTbbExecutor(r.threads);
    const int epochs = r.scheme == SchemeKind::kAverage ? 160 : 40;
    Trainer trainer(Cd(r.scheme, r.threads, epochs, model, Bias::kOn), data, nullptr, *executor);
    EpochReport last;
    for (int e = 0; e < epochs; ++e) last = trainer.RunEpoch();
    EXPECT_NEAR(last.objective, reference.objective, 1e-6 * reference.objective)
        << testing::Name(r.scheme);
  }
}

TEST_P(PrimalCdSmooth, ReachesTheOptimumOfTheReferenceAndOfTheDualSolver) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  const auto reference = testing::SolveReference(model, data, Labels(data), 1, kL2, 3000, false);
  auto one = MakeTbbExecutor(1);
  TrainConfig dual = Cd(SchemeKind::kSequential, 1, 100, model);
  dual.solver = Solver::kDualCd;
  dual.tol = 1e-9;
  Trainer dual_run(dual, data, nullptr, *one);
  const double dual_objective =
      RunEpochs(dual_run, {}, [](const EpochReport&, double) {}).last.objective;
  EXPECT_NEAR(dual_objective, reference.objective, 1e-6 * reference.objective);
  for (const SchemeThreads& r : kRuns) {
    auto executor = MakeTbbExecutor(r.threads);
    const int epochs = r.scheme == SchemeKind::kAverage ? 160 : 40;
    Trainer trainer(Cd(r.scheme, r.threads, epochs, model), data, nullptr, *executor);
    EpochReport last;
    for (int e = 0; e < epochs; ++e) last = trainer.RunEpoch();
    EXPECT_NEAR(last.objective, reference.objective, 1e-6 * reference.objective)
        << testing::Name(r.scheme);
    EXPECT_EQ(last.updates, data.rows());
  }
}

INSTANTIATE_TEST_SUITE_P(Losses, PrimalCdSmooth,
                         ::testing::Values(ModelKind::kLogistic, ModelKind::kSquaredHinge),
                         [](const auto& info) { return testing::Name(info.param); });

TEST(PrimalCd, EverySchemeWithOneWorkerIsTheSequentialSolver) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  for (Bias bias : {Bias::kOff, Bias::kOn}) {
    for (ModelKind model : {ModelKind::kSquared, ModelKind::kSquaredHinge, ModelKind::kLogistic}) {
      const LinearModel reference =
          testing::TrainModel(Cd(SchemeKind::kSequential, 1, 3, model, bias), data, *executor);
      for (SchemeKind s : {SchemeKind::kHogwild, SchemeKind::kAtomic, SchemeKind::kAverage}) {
        EXPECT_TRUE(testing::SameBits(
            testing::TrainModel(Cd(s, 1, 3, model, bias), data, *executor), reference))
            << testing::Name(model) << ", " << testing::Name(s) << ", bias " << int(bias);
      }
    }
  }
}

// Sequential and average lower the objective every epoch (average by its safe surrogate), and
// average gives the same bits with the same workers, run to run.
TEST(PrimalCd, TheDeterministicSchemesLowerTheObjectiveEveryEpoch) {
  const Dataset& data = Problem();
  for (Bias bias : {Bias::kOff, Bias::kOn}) {
    for (ModelKind model : {ModelKind::kSquared, ModelKind::kSquaredHinge, ModelKind::kLogistic}) {
      for (const SchemeThreads& r : {kRuns[0], kRuns[3]}) {
        auto executor = MakeTbbExecutor(r.threads);
        Trainer trainer(Cd(r.scheme, r.threads, 15, model, bias), data, nullptr, *executor);
        double previous = trainer.RunEpoch().objective;
        for (int e = 1; e < 15; ++e) {
          const double now = trainer.RunEpoch().objective;
          EXPECT_LE(now, previous * (1 + 1e-7))
              << testing::Name(model) << ", " << testing::Name(r.scheme) << ", bias " << int(bias)
              << ", epoch " << e + 1;
          previous = now;
        }
      }
      auto two = MakeTbbExecutor(2);
      const TrainConfig c = Cd(SchemeKind::kAverage, 2, 4, model, bias);
      EXPECT_TRUE(
          testing::SameBits(testing::TrainModel(c, data, *two), testing::TrainModel(c, data, *two)))
          << testing::Name(model);
    }
  }
}

TEST(PrimalCd, AResumedRunIsTheStraightRunAndARunCanStartFromAModel) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  for (Bias bias : {Bias::kOff, Bias::kOn}) {
    const TrainConfig c = Cd(SchemeKind::kSequential, 1, 4, ModelKind::kLogistic, bias);
    Trainer straight(c, data, nullptr, *executor);
    for (int e = 0; e < 4; ++e) straight.RunEpoch();
    Trainer first(c, data, nullptr, *executor);
    for (int e = 0; e < 2; ++e) first.RunEpoch();
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(first.Snapshot());
    for (int e = 0; e < 2; ++e) resumed.RunEpoch();
    EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model())) << int(bias);
    EXPECT_EQ(testing::Contains(straight.RunIdentity(), "\nbias=off\n"), bias == Bias::kOff);
    EXPECT_TRUE(testing::Contains(straight.RunIdentity(), "\nsolver=cd\n"));
    EXPECT_EQ(straight.model().bias()[0] != 0.f, bias == Bias::kOn);
    // From a trained model the scores are its own: the objective goes on from where it was.
    const double before = straight.RunEpoch().objective;
    Trainer started(c, data, nullptr, *executor);
    started.StartFrom(straight.model());
    EXPECT_LE(started.RunEpoch().objective, before * (1 + 1e-7)) << int(bias);
  }
}

TEST(PrimalCd, StopsAtTheFirstEpochThatLowersTheObjectiveByAtMostTheTolerance) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = Cd(SchemeKind::kSequential, 1, 500, ModelKind::kLogistic);
  c.tol = 1e-7;
  Trainer trainer(c, data, nullptr, *executor);
  std::vector<double> o;
  const RunLoopResult r =
      RunEpochs(trainer, {}, [&](const EpochReport& e, double) { o.push_back(e.objective); });
  ASSERT_GE(o.size(), 2u);
  ASSERT_LT(o.size(), 500u);
  EXPECT_TRUE(r.last.converged);
  EXPECT_LE(o[o.size() - 2] - o.back(), c.tol * o.back());
  for (std::size_t e = 1; e + 1 < o.size(); ++e) EXPECT_GT(o[e - 1] - o[e], c.tol * o[e]);
  Trainer automatic(Cd(SchemeKind::kSequential, 1, 0, ModelKind::kLogistic), data, nullptr,
                    *executor);
  EXPECT_EQ(automatic.settings().epochs, 1000);
}

// With the bias, the squared hinge and the logistic loss on positive, correlated features (a
// fixture, data/make_cd_bias.py, like unscaled measurements): the centred steps' sums over every
// row, taken at each epoch's start, fell behind within the epoch, and the run climbed to
// objective 42.6 and reported success (0.87 without the bias). An unregularised bias can only
// lower the optimum: every run ends at or below the bias-free one, one worker or two.
TEST(PrimalCd, WithTheBiasEndsBelowTheBiasFreeObjective) {
  const Dataset data = LoadDataset(testing::SourcePath("data/fixtures/cd_bias.svm"));
  for (const ModelKind model : {ModelKind::kSquaredHinge, ModelKind::kLogistic}) {
    for (const auto [scheme, threads] :
         {std::pair{SchemeKind::kSequential, 1}, std::pair{SchemeKind::kHogwild, 2}}) {
      auto executor = MakeTbbExecutor(threads);
      auto last_objective = [&](Bias bias) {
        TrainConfig c;  // the defaults, as the command line's run that went wrong
        c.model = model;
        c.solver = Solver::kCd;
        c.scheme = scheme;
        c.threads = threads;
        c.bias = bias;
        Trainer trainer(c, data, nullptr, *executor);
        return RunEpochs(trainer, {}, [](const EpochReport&, double) {}).last.objective;
      };
      const double without = last_objective(Bias::kOff);
      EXPECT_LE(last_objective(Bias::kOn), without * (1 + 1e-6))
          << NameOf<ModelKind>(kModelKinds, model) << " " << threads << " threads";
    }
  }
}

TEST(PrimalCd, RefusesWhatItDoesNotSolve) {
  using testing::Refusal;
  const TrainConfig c = Cd(SchemeKind::kAuto, 0, 0, ModelKind::kSquared);
  EXPECT_EQ(Refusal(c), "");
  TrainConfig hinge = c;
  hinge.model = ModelKind::kHinge;
  EXPECT_TRUE(testing::Contains(
      Refusal(hinge), "solver cd trains model squared, squared-hinge and logistic; not hinge"))
      << Refusal(hinge);
  TrainConfig bias = c;
  bias.bias = Bias::kOn;
  EXPECT_EQ(Refusal(bias), "");
  TrainConfig locked = c;
  locked.scheme = SchemeKind::kLocked;
  EXPECT_TRUE(testing::Contains(Refusal(locked), "average; not locked")) << Refusal(locked);
  TrainConfig batch = c;
  batch.batch = 8;
  EXPECT_TRUE(testing::Contains(Refusal(batch), "one coordinate at a time")) << Refusal(batch);
  TrainConfig adam = c;
  adam.optimizer.kind = OptimizerKind::kAdam;
  EXPECT_TRUE(testing::Contains(Refusal(adam), "optimizer adam does not apply")) << Refusal(adam);
  // The average of SGD's replicas has a period, a state and an outer step; cd's has none.
  TrainConfig average = c;
  average.scheme = SchemeKind::kAverage;
  EXPECT_EQ(Refusal(average), "");
  for (auto set :
       {+[](TrainConfig& x) { x.period = 5; }, +[](TrainConfig& x) { x.average_state = true; },
        +[](TrainConfig& x) { x.outer.kind = OuterKind::kNesterov; }}) {
    TrainConfig extra = average;
    set(extra);
    EXPECT_TRUE(testing::Contains(Refusal(extra), "it applies to solver sgd; this run's is cd"))
        << Refusal(extra);
  }
}

}  // namespace
}  // namespace parsgd
