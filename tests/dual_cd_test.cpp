// --solver dual-cd: dual coordinate descent for the L1-loss SVM. Its dual variables stay in their
// box, the weights stay the combination the dual says, the dual objective rises every pass, the
// optimum is reached, every scheme with one worker is the sequential solver bit for bit, and a
// resumed run is a straight one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"
#include "reference_solver.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr double kL2 = 0.01;

TrainConfig DualCd(SchemeKind scheme, int threads, int epochs) {
  TrainConfig c;
  c.model = ModelKind::kHinge;
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
  const Targets t = MakeTargets(ModelKind::kHinge, data);
  return {t.values.begin(), t.values.end()};
}

// LIBLINEAR's dual objective sum a_i - 1/2 ||w(a)||^2 with w(a) = sum a_i y_i x_i, and w(a) itself.
struct Dual {
  double objective;
  std::vector<double> w;
};
Dual DualOf(const std::vector<float>& a, const Dataset& data, const std::vector<float>& y) {
  Dual d{0, std::vector<double>(data.features(), 0.0)};
  for (uint64_t i = 0; i < data.rows(); ++i) {
    d.objective += a[i];
    const SparseRow x = data.row(i);
    for (uint32_t e = 0; e < x.nnz; ++e) d.w[x.index[e]] += double(a[i]) * y[i] * x.value[e];
  }
  double norm = 0;
  for (double v : d.w) norm += v * v;
  d.objective -= 0.5 * norm;
  return d;
}

TEST(DualCd, KeepsTheBoxAndTheWeightsOfTheDualAndRaisesTheDualEveryPass) {
  const Dataset& data = Problem();
  const std::vector<float> y = Labels(data);
  const double c_box = 1.0 / (static_cast<double>(data.rows()) * kL2);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = DualCd(SchemeKind::kSequential, 1, 12);
  Trainer trainer(c, data, nullptr, *executor);
  double previous = 0;  // the dual at a = 0
  double gap = 0;
  for (int e = 0; e < c.epochs; ++e) {
    const EpochReport r = trainer.RunEpoch();
    const std::vector<float> a = trainer.Snapshot().arrays().at("dual");
    ASSERT_EQ(a.size(), data.rows());
    for (float v : a) {
      ASSERT_GE(v, 0.f);
      ASSERT_LE(v, static_cast<float>(c_box));
    }
    const Dual d = DualOf(a, data, y);
    // The weights are the dual's combination (to float rounding), the bias untouched.
    const LinearModel& m = trainer.model();
    for (uint64_t j = 0; j < data.features(); ++j) {
      ASSERT_NEAR(m.weights()[j], d.w[j], 1e-4 * (1 + std::abs(d.w[j]))) << "feature " << j;
    }
    EXPECT_EQ(m.bias()[0], 0.f);
    EXPECT_GE(d.objective, previous - 1e-6) << "epoch " << e + 1;
    previous = d.objective;
    // Weak duality, in LIBLINEAR's scale: primal = C n * parsgd's objective >= dual.
    gap = c_box * data.rows() * r.objective - d.objective;
    EXPECT_GE(gap, -1e-3) << "epoch " << e + 1;
  }
  EXPECT_LT(gap, 1e-3 * previous);  // nearly closed after 12 passes
}

TEST(DualCd, ReachesTheOptimumWithOneWorkerAndWithTwo) {
  const Dataset& data = Problem();
  // The reference's hinge objective is an upper bound of the optimum, within 5e-3 of it.
  static const auto reference =
      testing::SolveReference(ModelKind::kHinge, data, Labels(data), 1, kL2, 3000, /*bias=*/false);
  for (const auto& [scheme, threads] : {std::pair{SchemeKind::kSequential, 1},
                                        std::pair{SchemeKind::kHogwild, 2},
                                        std::pair{SchemeKind::kAtomic, 2}}) {
    auto executor = MakeTbbExecutor(threads);
    const TrainConfig c = DualCd(scheme, threads, 30);
    Trainer trainer(c, data, nullptr, *executor);
    EpochReport last;
    for (int e = 0; e < c.epochs; ++e) last = trainer.RunEpoch();
    EXPECT_LE(last.objective, reference.objective + 1e-4) << testing::Name(scheme);
    EXPECT_GE(last.objective, reference.objective - 5e-3 - 1e-4) << testing::Name(scheme);
    EXPECT_EQ(last.updates, data.rows());
  }
}

TEST(DualCd, EverySchemeWithOneWorkerIsTheSequentialSolver) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  const LinearModel reference = testing::TrainModel(DualCd(SchemeKind::kSequential, 1, 3), data, *executor);
  for (SchemeKind s : {SchemeKind::kHogwild, SchemeKind::kLocked, SchemeKind::kStriped,
                       SchemeKind::kAtomic}) {
    EXPECT_TRUE(testing::SameBits(testing::TrainModel(DualCd(s, 1, 3), data, *executor), reference))
        << testing::Name(s);
  }
}

TEST(DualCd, AResumedRunIsTheStraightRun) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = DualCd(SchemeKind::kSequential, 1, 4);
  Trainer straight(c, data, nullptr, *executor);
  for (int e = 0; e < 4; ++e) straight.RunEpoch();
  Trainer first(c, data, nullptr, *executor);
  for (int e = 0; e < 2; ++e) first.RunEpoch();
  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(first.Snapshot());
  for (int e = 0; e < 2; ++e) resumed.RunEpoch();
  EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model()));
  EXPECT_TRUE(testing::Contains(straight.RunIdentity(), "\nbias=off\nsolver=dual-cd\n"));
}

TEST(DualCd, RefusesWhatItDoesNotSolve) {
  using testing::Refusal;
  TrainConfig c = DualCd(SchemeKind::kAuto, 0, 0);
  EXPECT_EQ(Refusal(c), "");
  TrainConfig softmax = c;
  softmax.model = ModelKind::kSoftmax;
  EXPECT_TRUE(testing::Contains(Refusal(softmax), "solver dual-cd trains model hinge")) << Refusal(softmax);
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
