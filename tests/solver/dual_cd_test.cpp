// --solver dual-cd: dual coordinate descent for the L1-loss SVM and logistic regression. Its dual
// variables stay in their box, the weights stay the combination the dual says (under Hogwild! after
// every epoch), the dual objective rises every pass and is the one reported, the optimum is
// reached, every scheme with one worker is the sequential solver bit for bit, a resumed run is a
// straight one, and the run stops by the duality gap.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "reference_solver.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr double kL2 = 0.01;

TrainConfig DualCd(SchemeKind scheme, int threads, int epochs,
                   ModelKind model = ModelKind::kHinge) {
  TrainConfig c;
  c.model = model;
  c.solver = Solver::kDualCd;
  c.bias = Bias::kOff;
  c.scheme = scheme;
  c.threads = threads;
  c.epochs = epochs;
  c.l2 = kL2;
  return c;
}

const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(1500, 50, 8, 2, 0.05, 21);
  return data;
}

std::vector<float> Labels(const Dataset& data) {
  return testing::TargetValues(ModelKind::kHinge, data);
}

double CBox(const Dataset& data) { return 1.0 / (static_cast<double>(data.rows()) * kL2); }

double XLogX(double x) { return x > 0 ? x * std::log(x) : 0.0; }

// LIBLINEAR's dual objective sum_i t(a_i) - 1/2 ||w(a)||^2 with w(a) = sum a_i y_i x_i, and w(a)
// itself: t(a) = a for the hinge, a - a^2 / (4C) for the squared hinge, C log C - a log a - (C - a)
// log(C - a) for the logistic loss (written in the test from the snapshot's a and C - a).
struct Dual {
  double objective;
  std::vector<double> w;
};
Dual DualOf(ModelKind model, const TrainingState& state, const Dataset& data,
            const std::vector<float>& y) {
  const std::vector<float>& a = state.arrays().at("dual");
  const double c = CBox(data);
  Dual d{0, std::vector<double>(data.features(), 0.0)};
  for (uint64_t i = 0; i < data.rows(); ++i) {
    if (model == ModelKind::kLogistic) {
      const float rest = state.arrays().at("dual_rest")[i];
      d.objective += c * std::log(c) - XLogX(a[i]) - XLogX(rest);
    } else if (model == ModelKind::kSquaredHinge) {
      d.objective += a[i] - double(a[i]) * a[i] / (4 * c);
    } else {
      d.objective += a[i];
    }
    const SparseRow x = data.row(i);
    for (uint32_t e = 0; e < x.nnz; ++e) d.w[x.index[e]] += double(a[i]) * y[i] * x.value[e];
  }
  double norm = 0;
  for (double v : d.w) norm += v * v;
  d.objective -= 0.5 * norm;
  return d;
}

class DualCdModel : public ::testing::TestWithParam<ModelKind> {};

TEST_P(DualCdModel, KeepsTheBoxAndTheWeightsOfTheDualAndRaisesTheDualEveryPass) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  const std::vector<float> y = Labels(data);
  const double c_box = CBox(data);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = DualCd(SchemeKind::kSequential, 1, 12, model);
  Trainer trainer(c, data, nullptr, *executor);
  double previous = 0;  // the dual at a = 0
  double gap = 0;
  for (int e = 0; e < c.epochs; ++e) {
    const EpochReport r = trainer.RunEpoch();
    const TrainingState state = trainer.Snapshot();
    const std::vector<float>& a = state.arrays().at("dual");
    ASSERT_EQ(a.size(), data.rows());
    for (uint64_t i = 0; i < data.rows(); ++i) {
      ASSERT_GE(a[i], 0.f);
      if (model != ModelKind::kSquaredHinge) {  // the squared hinge's has no upper bound
        ASSERT_LE(a[i], static_cast<float>(c_box));
      }
      if (model == ModelKind::kLogistic) {  // strictly inside, its complement kept beside it
        const float rest = state.arrays().at("dual_rest")[i];
        ASSERT_GT(a[i], 0.f);
        ASSERT_GT(rest, 0.f);
        ASSERT_NEAR(a[i] + rest, c_box, 1e-6 * c_box) << "row " << i;
      }
    }
    const Dual d = DualOf(model, state, data, y);
    // The weights are the dual's combination (to float rounding), the bias untouched.
    const LinearModel& m = trainer.model();
    for (uint64_t j = 0; j < data.features(); ++j) {
      ASSERT_NEAR(m.weights()[j], d.w[j], 1e-4 * (1 + std::abs(d.w[j]))) << "feature " << j;
    }
    EXPECT_EQ(m.bias()[0], 0.f);
    EXPECT_GE(d.objective, previous - 1e-6) << "epoch " << e + 1;
    previous = d.objective;
    // The reported dual is this one, on the objective's scale (1 / (C n) of LIBLINEAR's).
    const double scale = c_box * data.rows();
    ASSERT_TRUE(r.dual_objective.has_value());
    EXPECT_NEAR(*r.dual_objective * scale, d.objective, 1e-5 * (1 + std::abs(d.objective)));
    // Weak duality, in LIBLINEAR's scale: primal = C n * parsgd's objective >= dual.
    gap = scale * r.objective - d.objective;
    EXPECT_GE(gap, -1e-3) << "epoch " << e + 1;
  }
  EXPECT_LT(gap, 1e-3 * std::abs(previous));  // nearly closed after 12 passes
}

TEST_P(DualCdModel, ReachesTheOptimumWithOneWorkerAndWithTwo) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  // The reference's objective is an upper bound of the optimum, within 5e-3 of it for the hinge
  // (which it smooths); the gap of each run bounds it from below.
  const auto reference =
      testing::SolveReference(model, data, Labels(data), 1, kL2, 3000, /*bias=*/false);
  for (const auto& [scheme, threads] :
       {std::pair{SchemeKind::kSequential, 1}, std::pair{SchemeKind::kHogwild, 2},
        std::pair{SchemeKind::kAtomic, 2}}) {
    auto executor = MakeTbbExecutor(threads);
    const TrainConfig c = DualCd(scheme, threads, 30, model);
    Trainer trainer(c, data, nullptr, *executor);
    EpochReport last;
    for (int e = 0; e < c.epochs; ++e) last = trainer.RunEpoch();
    EXPECT_LE(last.objective, reference.objective + 1e-4) << testing::Name(scheme);
    EXPECT_GE(last.objective, reference.objective - 5e-3 - 1e-4) << testing::Name(scheme);
    EXPECT_LE(*last.dual_objective, reference.objective * (1 + 1e-6)) << testing::Name(scheme);
    EXPECT_LT(*last.relative_gap(), 1e-3) << testing::Name(scheme);
    // Every row is stepped, less those set aside by the SVMs' shrinking.
    if (model == ModelKind::kLogistic) {
      EXPECT_EQ(last.updates, data.rows());
    } else {
      EXPECT_LE(last.updates, data.rows());
    }
  }
}

// Two Hogwild! workers lose writes (on std::threads, started together, over many rows and a few
// hot features, so that they collide); after every epoch the weights are set back to the dual's
// combination, so they are that then, and the gap stays a bound. Each order's way of doing it: the
// epoch's logged steps added to the last epoch's weights where each sample is stepped once an
// epoch, everything summed afresh under --order random and in the first epoch after a resume.
TEST_P(DualCdModel, HogwildWeightsAreTheDualsCombinationAfterEveryEpoch) {
  const ModelKind model = GetParam();
  const Dataset data = testing::MakeProblem(40000, 12, 6, 2, 0.05, 4);
  const std::vector<float> y = Labels(data);
  auto executor = MakeThreadExecutor(2);
  auto expect_combination = [&](const Trainer& trainer, const EpochReport& r,
                                const std::string& what) {
    const TrainingState state = trainer.Snapshot();
    const std::vector<float>& a = state.arrays().at("dual");
    std::vector<double> w(data.features(), 0.0);
    for (uint64_t i = 0; i < data.rows(); ++i) {
      const SparseRow x = data.row(i);
      for (uint32_t k = 0; k < x.nnz; ++k) w[x.index[k]] += double(a[i]) * y[i] * x.value[k];
    }
    const LinearModel& m = trainer.model();
    for (uint64_t j = 0; j < data.features(); ++j) {
      ASSERT_NEAR(m.weights()[j], w[j], 1e-6 * (1 + std::abs(w[j]))) << what << ", feature " << j;
    }
    EXPECT_GE(*r.relative_gap(), -1e-6) << what;
  };
  for (OrderKind order : {OrderKind::kGlobal, OrderKind::kRandom}) {
    TrainConfig c = DualCd(SchemeKind::kHogwild, 2, 4, model);
    c.l2 = 1e-4;
    c.order = order;
    const std::string name(NameOf<OrderKind>(kOrderKinds, order));
    Trainer trainer(c, data, nullptr, *executor);
    for (int e = 0; e < c.epochs; ++e) {
      const EpochReport r = trainer.RunEpoch();
      expect_combination(trainer, r, fmt::format("--order {}, epoch {}", name, e + 1));
      if (e != 1) continue;
      Trainer resumed(c, data, nullptr, *executor);
      resumed.Restore(trainer.Snapshot());
      expect_combination(resumed, resumed.RunEpoch(), fmt::format("--order {}, resumed", name));
    }
  }
}

TEST_P(DualCdModel, EverySchemeWithOneWorkerIsTheSequentialSolver) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  const LinearModel reference =
      testing::TrainModel(DualCd(SchemeKind::kSequential, 1, 3, model), data, *executor);
  for (SchemeKind s :
       {SchemeKind::kHogwild, SchemeKind::kLocked, SchemeKind::kStriped, SchemeKind::kAtomic}) {
    EXPECT_TRUE(
        testing::SameBits(testing::TrainModel(DualCd(s, 1, 3, model), data, *executor), reference))
        << testing::Name(s);
  }
}

TEST_P(DualCdModel, AResumedRunIsTheStraightRun) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = DualCd(SchemeKind::kSequential, 1, 4, model);
  Trainer straight(c, data, nullptr, *executor);
  for (int e = 0; e < 4; ++e) straight.RunEpoch();
  Trainer first(c, data, nullptr, *executor);
  for (int e = 0; e < 2; ++e) first.RunEpoch();
  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(first.Snapshot());
  for (int e = 0; e < 2; ++e) resumed.RunEpoch();
  EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model()));
  EXPECT_TRUE(testing::Contains(straight.RunIdentity(), "\nbias=off\n"));
  EXPECT_TRUE(testing::Contains(straight.RunIdentity(), "\nsolver=dual-cd\n"));
}

// The stopping rule: a run stops at the first epoch whose relative duality gap is within --tol, and
// the gap falls on the way there (one worker): every epoch for the smooth losses.
TEST_P(DualCdModel, StopsAtTheFirstEpochWithinTheTolerance) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = DualCd(SchemeKind::kSequential, 1, 200, GetParam());
  c.tol = GetParam() == ModelKind::kHinge ? 1e-4 : 1e-6;
  Trainer trainer(c, data, nullptr, *executor);
  std::vector<double> gaps;
  const RunLoopResult result = RunEpochs(trainer, {}, [&](const EpochReport& r, double) {
    gaps.push_back(*r.relative_gap());
    EXPECT_EQ(r.converged, gaps.back() <= c.tol) << "epoch " << r.epoch;
  });
  ASSERT_GE(gaps.size(), 3u);
  EXPECT_LT(gaps.size(), 200u);
  EXPECT_TRUE(result.last.converged);
  EXPECT_EQ(trainer.epochs_done(), static_cast<int>(gaps.size()));
  if (GetParam() == ModelKind::kHinge) {
    // The hinge's primal is not smooth and rises now and then (the dual never falls): its gap
    // falls over the run, not every epoch.
    EXPECT_LT(gaps.back(), 0.01 * gaps.front());
    return;
  }
  for (std::size_t e = 1; e < gaps.size(); ++e)
    EXPECT_LT(gaps[e], gaps[e - 1]) << "epoch " << e + 1;
}

INSTANTIATE_TEST_SUITE_P(Losses, DualCdModel,
                         ::testing::Values(ModelKind::kHinge, ModelKind::kSquaredHinge,
                                           ModelKind::kLogistic),
                         [](const auto& info) { return testing::Name(info.param); });

TEST(DualCd, TheDefaultsStopByTheGapWithinAThousandEpochs) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c = DualCd(SchemeKind::kAuto, 1, 0, ModelKind::kHinge);
  Trainer trainer(c, data, nullptr, *executor);
  EXPECT_EQ(trainer.settings().epochs, 1000);
  EXPECT_TRUE(trainer.settings().tol_auto);
  EXPECT_EQ(trainer.settings().tol, 1e-4);
  const RunLoopResult result = RunEpochs(trainer, {}, [](const EpochReport&, double) {});
  EXPECT_TRUE(result.last.converged);
  EXPECT_LE(*result.last.relative_gap(), 1e-4);
  EXPECT_LT(result.last.epoch, 1000);
}

// Shrinking sets rows aside (the snapshot marks them) and reaches the same optimum as visiting
// every row; off, nothing is set aside.
TEST(DualCd, ShrinkingSetsRowsAsideAndReachesTheSameOptimum) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  double gap_objective[2];
  for (Shrinking shrinking : {Shrinking::kOn, Shrinking::kOff}) {
    TrainConfig c = DualCd(SchemeKind::kSequential, 1, 500);
    c.shrinking = shrinking;
    c.tol = 1e-5;
    Trainer trainer(c, data, nullptr, *executor);
    uint64_t most_aside = 0, aside = 0;  // aside: after the epoch before
    const RunLoopResult r = RunEpochs(trainer, {}, [&](const EpochReport& report, double) {
      // An epoch steps the rows not set aside at its start (one worker: each once).
      EXPECT_EQ(report.updates, data.rows() - aside) << "epoch " << report.epoch;
      aside = 0;
      const TrainingState state = trainer.Snapshot();
      for (float v : state.arrays().at("dual_aside")) aside += v != 0.f;
      most_aside = std::max(most_aside, aside);
    });
    ASSERT_TRUE(r.last.converged);
    if (shrinking == Shrinking::kOn) {
      EXPECT_GT(most_aside, data.rows() / 10);
    } else {
      EXPECT_EQ(most_aside, 0u);
    }
    gap_objective[shrinking == Shrinking::kOn ? 0 : 1] = r.last.objective;
  }
  EXPECT_NEAR(gap_objective[0], gap_objective[1], 2e-6 * gap_objective[1]);
}

TEST(DualCd, CannotStartFromATrainedModel) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig sgd;
  sgd.model = ModelKind::kHinge;
  sgd.bias = Bias::kOff;
  sgd.epochs = 1;
  const LinearModel start = testing::TrainModel(sgd, data, *executor);
  Trainer trainer(DualCd(SchemeKind::kSequential, 1, 2), data, nullptr, *executor);
  try {
    trainer.StartFrom(start);
    ADD_FAILURE() << "StartFrom accepted a model";
  } catch (const Error& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "cannot start from a trained model")) << e.what();
  }
}

TEST(DualCd, RefusesWhatItDoesNotSolve) {
  using testing::Refusal;
  TrainConfig c = DualCd(SchemeKind::kAuto, 0, 0);
  EXPECT_EQ(Refusal(c), "");
  TrainConfig logistic = c;
  logistic.model = ModelKind::kLogistic;
  EXPECT_EQ(Refusal(logistic), "");
  TrainConfig softmax = c;
  softmax.model = ModelKind::kSoftmax;
  EXPECT_TRUE(testing::Contains(Refusal(softmax), "solver dual-cd trains model hinge"))
      << Refusal(softmax);
  TrainConfig bias = c;
  bias.bias = Bias::kOn;
  EXPECT_TRUE(testing::Contains(Refusal(bias), "give bias off")) << Refusal(bias);
  TrainConfig sync = c;
  sync.scheme = SchemeKind::kSync;
  EXPECT_TRUE(testing::Contains(Refusal(sync), "not sync")) << Refusal(sync);
  TrainConfig adam = c;
  adam.optimizer.kind = OptimizerKind::kAdam;
  EXPECT_TRUE(testing::Contains(Refusal(adam), "optimizer adam does not apply")) << Refusal(adam);
  TrainConfig batch = c;
  batch.batch = 8;
  EXPECT_TRUE(testing::Contains(Refusal(batch), "one sample at a time")) << Refusal(batch);
  TrainConfig hard = c;
  hard.l2 = 0;
  EXPECT_TRUE(testing::Contains(Refusal(hard), "l2 above 0")) << Refusal(hard);
}

}  // namespace
}  // namespace parsgd
