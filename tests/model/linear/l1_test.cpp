// The L1 penalty (--l1, elastic net with --l2): the proximal step of every optimiser rule checked
// by hand (soft-thresholding at the step times the feature's rate, exact zeros); --solver cd
// reaches a point where the optimality conditions of the L1 problem hold (a certificate that needs
// no reference solver) under every scheme, with and without the bias, and sets aside columns that
// stay at 0 without stopping early or losing a resumed run's bits; SGD under every scheme family
// comes near cd's optimum with exact zeros; the objective holds the L1 term; the runs that do not
// take it refuse it by name.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/linear/gradient_sum.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// sgd's cumulative penalty: a weight owes a (m_j l1) times the clock (the sum of the step sizes so
// far) and its state holds what it was given; it is given what it owes toward 0, no further.
TEST(L1Step, SgdTakesTheCumulativePenaltyThenShrinks) {
  RuleContext c = testing::SgdContext(0.5f);
  c.penalty = 0.5f;  // one step of 0.5: owes 0.05
  float w = 1.f, given = 0.f;
  ParamArrays p{&w, &given, nullptr};
  // w = 1, loss gradient 0.2, L2 term 0.4: v = 1 - 0.1 = 0.9, less 0.05, shrunk by 1 / 1.2.
  SgdRule::Apply<PlainWrite, true>(p, 0, 0.2f, SgdRule::Prepare(c, 0.4f), c, 0.1f);
  EXPECT_FLOAT_EQ(w, 0.85f / 1.2f);
  EXPECT_FLOAT_EQ(given, -0.05f);
  // Two more steps later it owes 0.15 in all, of which it was given 0.05: 0.1 now.
  c.penalty = 1.5f;
  w = 1.f;
  SgdRule::Apply<PlainWrite, true>(p, 0, 0.f, 1.f, c, 0.1f);
  EXPECT_FLOAT_EQ(w, 0.9f);
  EXPECT_FLOAT_EQ(given, -0.15f);
  // At 0 with 1 owed: pushes of 0.3 and 0.3 are taken back (the debt shrinks by each); a push of
  // 0.5 then clears the rest (0.4) and leaves 0.1.
  w = 0.f;
  given = 0.f;
  c.penalty = 10.f;
  for (const float push : {0.3f, 0.3f}) {
    SgdRule::Apply<PlainWrite, true>(p, 0, -push / c.eta, 1.f, c, 0.1f);
    EXPECT_EQ(w, 0.f);
  }
  EXPECT_FLOAT_EQ(given, -0.6f);
  SgdRule::Apply<PlainWrite, true>(p, 0, -0.5f / c.eta, 1.f, c, 0.1f);
  EXPECT_NEAR(w, 0.1f, 1e-6f);
  // The negative side owes by its own account: u - given = 1 + 1 = 2.
  w = 0.f;
  SgdRule::Apply<PlainWrite, true>(p, 0, 1.5f / c.eta, 1.f, c, 0.1f);
  EXPECT_EQ(w, 0.f);
  EXPECT_EQ(SoftThreshold(0.f, 0.f), 0.f);
  EXPECT_EQ(SoftThreshold(-2.f, 0.5f), -1.5f);
}

TEST(L1Step, MomentumAndAdaGradThresholdAtTheirEffectiveStep) {
  OptimizerConfig o;
  o.kind = OptimizerKind::kMomentum;
  o.momentum = 0.5;
  const RuleContext m = MakeRuleContext(o, 0.1f, 1);  // effective step 0.1 / (1 - 0.5) = 0.2
  float w = 1.f, v = 0.f;
  MomentumRule::Apply<PlainWrite, true>(ParamArrays{&w, &v, nullptr}, 0, 1.f,
                                        MomentumRule::Prepare(m, 0.f), m, 0.5f);
  EXPECT_FLOAT_EQ(v, 1.f);
  EXPECT_FLOAT_EQ(w, 1.f - 0.1f - 0.2f * 0.5f);
  o.kind = OptimizerKind::kAdaGrad;
  o.epsilon = 0;
  const RuleContext a = MakeRuleContext(o, 0.1f, 1);
  // g = l + q w + a sign(w) = 0.3 + 0 + 0.1; s = 0.16, D = 0.4; w = S(1 x 0.4 - 0.1 x 0.3,
  // 0.1 x 0.1) / 0.4 = (0.37 - 0.01) / 0.4.
  float wa = 1.f, s = 0.f;
  AdaGradRule::Apply<PlainWrite, true>(ParamArrays{&wa, &s, nullptr}, 0, 0.3f,
                                       AdaGradRule::Prepare(a, 0.f), a, 0.1f);
  EXPECT_FLOAT_EQ(s, 0.16f);
  EXPECT_FLOAT_EQ(wa, 0.36f / 0.4f);
}

// A sample's step touches only its row's coordinates, each thresholded at its own rate; the bias
// is never penalised.
TEST(L1Step, ASampleThresholdsItsCoordinatesAtTheirRates) {
  std::vector<float> w = {0.3f, -0.02f, 0.5f, 0.f};  // 3 features, then the bias
  std::vector<float> given(4, 0.f);
  const std::vector<float> l1 = {0.2f, 1.f, 0.f};
  const uint32_t index[] = {0, 1};
  const float value[] = {1.f, 1.f};
  const LinearParams p{{w.data(), given.data(), nullptr}, 3, 1, nullptr, true, l1.data()};
  SequentialScheme scheme;
  float z[1];
  RuleContext c = testing::SgdContext(0.1f);
  c.penalty = 0.1f;  // the first step's
  // Squared loss at target 0: z = 0.3 - 0.02 + 0 = 0.28, d = 0.28.
  LinearSgdStep<BinaryHead<SquaredLoss>, SgdRule>({}, scheme, p, SparseRow{index, value, 2}, 0.f,
                                                  1.f, c, z);
  EXPECT_FLOAT_EQ(w[0], 0.3f - 0.1f * 0.28f - 0.1f * 0.2f);
  EXPECT_EQ(w[1], 0.f);                  // -0.02 - 0.028, within 0.1 of 0: clipped
  EXPECT_FLOAT_EQ(given[1], 0.048f);     // what it was given toward 0
  EXPECT_EQ(w[2], 0.5f);                 // not in the row
  EXPECT_FLOAT_EQ(w[3], -0.1f * 0.28f);  // the bias: the loss's step alone
}

// A minibatch's mean step weighs a feature's L1 term by the share of the rows that had it (the
// truncating rules); sgd's cumulative penalty owes by its clock alone.
TEST(L1Step, AMinibatchWeighsTheTermByTheRowsThatHadTheFeature) {
  OptimizerConfig o;
  o.kind = OptimizerKind::kMomentum;
  o.momentum = 0;  // a plain step, through the truncating rule
  const RuleContext m = MakeRuleContext(o, 0.5f, 1);
  float w = 1.f, v = 0.f;
  float sum[1] = {0.8f};  // summed gradient of 4 rows, 2 of which had the feature
  const float l1[1] = {0.4f};
  ApplyFeatureMean<MomentumRule, PlainWrite>(ParamArrays{&w, &v, nullptr}, nullptr, 0, 1, sum, 2,
                                             0.25f, m, l1);
  // mean gradient 0.2: v = 1 - 0.1 = 0.9, thresholded at 0.5 x 0.4 x 2/4 = 0.1.
  EXPECT_FLOAT_EQ(w, 0.8f);
  EXPECT_EQ(sum[0], 0.f);
  RuleContext c = testing::SgdContext(0.5f);
  c.penalty = 1.f;  // two steps of 0.5: owes 0.4
  w = 1.f;
  float given = 0.f;
  sum[0] = 0.8f;
  ApplyFeatureMean<SgdRule, PlainWrite>(ParamArrays{&w, &given, nullptr}, nullptr, 0, 1, sum, 2,
                                        0.25f, c, l1);
  EXPECT_FLOAT_EQ(w, 0.5f);
}

// The lazy catch-up: a coordinate a row skips takes the skipped steps' penalty at its next touch,
// as the eager penalty (every coordinate, every step) gives it. The hinge loss inside its margin
// has a gradient that does not depend on the weights, so the two runs' steps are the same.
TEST(L1, SgdsLazyCatchUpIsTheEagerPenalty) {
  // Feature 0 in rows 0 and 3, feature 1 in every row; labels +1; the scores stay below 1.
  const std::vector<testing::Entries> rows = {
      {{0, 1.f}, {1, 0.1f}}, {{1, 0.1f}}, {{1, 0.1f}}, {{0, 1.f}, {1, 0.1f}}, {{1, 0.1f}}};
  const Dataset data = testing::MakeDataset(rows, std::vector<float>(5, 1.f), 2);
  TrainConfig c;
  c.model = ModelKind::kHinge;
  c.scheme = SchemeKind::kSequential;
  c.order = OrderKind::kSequential;
  c.schedule = ScheduleKind::kConstant;
  c.learning_rate = 0.1;
  c.normalize = Normalization::kNone;
  c.bias = Bias::kOff;
  c.l1 = 0.01;
  c.epochs = 2;
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(c, data, nullptr, *executor);
  for (int e = 0; e < 2; ++e) trainer.RunEpoch();
  // Eager: each step moves the row's coordinates by eta x (y x) and every weight toward 0 by eta
  // l1.
  std::vector<double> w(2, 0.0);
  for (int e = 0; e < 2; ++e) {
    for (const testing::Entries& row : rows) {
      for (const auto& [j, v] : row) w[j] += 0.1 * v;
      for (double& wj : w) wj = wj > 0 ? std::max(0.0, wj - 0.1 * 0.01) : wj;
    }
  }
  // Feature 0 was last touched at the 4th step of the second epoch: the eager weight has one step
  // more of penalty, which the lazy weight takes at its next touch.
  EXPECT_NEAR(trainer.model().weights()[0], w[0] + 0.1 * 0.01, 1e-6);
  EXPECT_NEAR(trainer.model().weights()[1], w[1], 1e-6);
}

const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(1500, 40, 8, 2, 0.05, 23);
  return data;
}

constexpr double kL1 = 0.01;

TrainConfig Config(Solver solver, SchemeKind scheme, int threads, int epochs, ModelKind model,
                   Bias bias) {
  TrainConfig c;
  c.model = model;
  c.solver = solver;
  c.scheme = scheme;
  c.threads = threads;
  c.epochs = epochs;
  c.bias = bias;
  c.l1 = kL1;
  c.tol = 0;
  return c;
}

// The mean loss's derivative in the score, for the models cd solves.
double LossDerivative(ModelKind model, double z, double y) {
  switch (model) {
    case ModelKind::kSquared:
      return z - y;
    case ModelKind::kSquaredHinge:
      return -2 * y * std::max(0.0, 1 - y * z);
    default:
      return -y / (1 + std::exp(y * z));
  }
}

// The largest violation of the L1 problem's optimality conditions at the model: for w_j != 0,
// |g_j + l1 sign(w_j)|; for w_j = 0, how far |g_j| exceeds l1; with the bias, |its gradient|.
// g: the gradient of the mean loss plus l2 w (all in double).
double Violation(const LinearModel& m, const Dataset& data, ModelKind model, double l1, double l2,
                 bool bias) {
  const std::vector<float> y = testing::TargetValues(model, data);
  const uint64_t d = data.features();
  std::vector<double> g(d, 0.0);
  double gb = 0;
  const double n = static_cast<double>(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const SparseRow x = data.row(i);
    double z = bias ? m.bias()[0] : 0.0;
    for (uint32_t e = 0; e < x.nnz; ++e) z += double(x.value[e]) * m.weights()[x.index[e]];
    const double dl = LossDerivative(model, z, y[i]) / n;
    for (uint32_t e = 0; e < x.nnz; ++e) g[x.index[e]] += dl * x.value[e];
    gb += dl;
  }
  double worst = bias ? std::abs(gb) : 0.0;
  for (uint64_t j = 0; j < d; ++j) {
    const double w = m.weights()[j];
    const double gj = g[j] + l2 * w;
    worst = std::max(worst, w != 0 ? std::abs(gj + (w > 0 ? l1 : -l1)) : std::abs(gj) - l1);
  }
  return worst;
}

uint64_t Zeros(const LinearModel& m) {
  return m.features() * static_cast<uint64_t>(m.outputs()) - m.Nonzeros();
}

struct SchemeThreads {
  SchemeKind scheme;
  int threads;
};

class L1Cd : public ::testing::TestWithParam<ModelKind> {};

TEST_P(L1Cd, ReachesTheOptimalityConditionsUnderEveryScheme) {
  const ModelKind model = GetParam();
  const Dataset& data = Problem();
  for (const Bias bias : {Bias::kOff, Bias::kOn}) {
    for (const auto [scheme, threads] :
         {SchemeThreads{SchemeKind::kSequential, 1}, SchemeThreads{SchemeKind::kHogwild, 2},
          SchemeThreads{SchemeKind::kAverage, 2}}) {
      SCOPED_TRACE(testing::Name(model) + ", " + testing::Name(scheme) + ", bias " +
                   std::to_string(int(bias)));
      auto executor = MakeTbbExecutor(threads);
      const int epochs = scheme == SchemeKind::kAverage ? 400 : 150;
      TrainConfig c = Config(Solver::kCd, scheme, threads, epochs, model, bias);
      Trainer trainer(c, data, nullptr, *executor);
      EXPECT_EQ(trainer.settings().l2, 0.0);  // --l1 alone: the lasso, no auto L2
      EpochReport last;
      for (int e = 0; e < epochs; ++e) last = trainer.RunEpoch();
      const LinearModel& m = trainer.model();
      EXPECT_LT(Violation(m, data, model, kL1, 0, bias == Bias::kOn), 2e-5);
      // The penalty sets some weights to exactly 0 and keeps others.
      EXPECT_GT(Zeros(m), 0u);
      EXPECT_GT(m.Nonzeros(), 3u);
      ASSERT_TRUE(last.nonzero_weights.has_value());
      EXPECT_EQ(*last.nonzero_weights, m.Nonzeros());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Losses, L1Cd,
                         ::testing::Values(ModelKind::kLogistic, ModelKind::kSquared,
                                           ModelKind::kSquaredHinge),
                         [](const auto& info) { return testing::Name(info.param); });

// Elastic net: --l1 with --l2; the objective is the mean loss plus both terms.
TEST(L1, TheObjectiveHoldsBothTermsAndCdReachesTheElasticNetsOptimum) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c =
      Config(Solver::kCd, SchemeKind::kSequential, 1, 150, ModelKind::kLogistic, Bias::kOn);
  c.l2 = 0.02;
  Trainer trainer(c, data, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < 150; ++e) last = trainer.RunEpoch();
  const LinearModel& m = trainer.model();
  EXPECT_LT(Violation(m, data, ModelKind::kLogistic, kL1, 0.02, true), 2e-5);
  const Targets targets = MakeTargets(ModelKind::kLogistic, data);
  const Evaluation e = Evaluate(m, data, targets, *executor);
  double abs = 0, squares = 0;
  for (uint64_t j = 0; j < m.features(); ++j) {
    abs += std::abs(double(m.weights()[j]));
    squares += double(m.weights()[j]) * m.weights()[j];
  }
  EXPECT_NEAR(last.objective, e.mean_loss + kL1 * abs + 0.01 * squares, 1e-12);
}

// Shrinking: epochs that set columns aside are never the stopping rule's; the run ends on an epoch
// over every column, at the optimum.
TEST(L1, CdSetsColumnsAsideButStopsOnlyAfterAWholeEpoch) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c =
      Config(Solver::kCd, SchemeKind::kSequential, 1, 1000, ModelKind::kLogistic, Bias::kOff);
  c.tol = 1e-9;
  Trainer trainer(c, data, nullptr, *executor);
  int partial = 0;
  const RunLoopResult r = RunEpochs(trainer, {}, [&](const EpochReport& e, double) {
    partial += e.partial ? 1 : 0;
    if (e.partial) {
      EXPECT_LT(e.updates, data.rows());
      EXPECT_FALSE(e.converged);
    }
  });
  EXPECT_GT(partial, 0);
  EXPECT_TRUE(r.last.converged);
  EXPECT_FALSE(r.last.partial);
  EXPECT_LT(Violation(trainer.model(), data, ModelKind::kLogistic, kL1, 0, false), 1e-5);
}

// SGD's record of what each weight was given is part of the run's state (its optimiser state),
// under the shared parameters and the replicas alike.
TEST(L1, AnSgdRunResumedMidwayIsTheStraightRun) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  for (const SchemeKind scheme : {SchemeKind::kSequential, SchemeKind::kAverage}) {
    TrainConfig c = Config(Solver::kSgd, scheme, 1, 6, ModelKind::kLogistic, Bias::kOn);
    Trainer straight(c, data, nullptr, *executor);
    for (int e = 0; e < 6; ++e) straight.RunEpoch();
    Trainer first(c, data, nullptr, *executor);
    for (int e = 0; e < 3; ++e) first.RunEpoch();
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(first.Snapshot());
    for (int e = 0; e < 3; ++e) resumed.RunEpoch();
    EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model())) << testing::Name(scheme);
  }
}

TEST(L1, ACdRunResumedMidwayIsTheStraightRun) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  for (const Bias bias : {Bias::kOff, Bias::kOn}) {
    const TrainConfig c =
        Config(Solver::kCd, SchemeKind::kSequential, 1, 12, ModelKind::kLogistic, bias);
    Trainer straight(c, data, nullptr, *executor);
    for (int e = 0; e < 12; ++e) straight.RunEpoch();
    Trainer first(c, data, nullptr, *executor);
    for (int e = 0; e < 5; ++e) first.RunEpoch();
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(first.Snapshot());
    for (int e = 0; e < 7; ++e) resumed.RunEpoch();
    EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model())) << int(bias);
    EXPECT_TRUE(testing::Contains(straight.RunIdentity(), "\nl1=0.01\n"));
  }
}

// SGD (the cumulative penalty) comes within 1% of cd's optimum under each scheme family, with
// weights at exactly 0; without the penalty none is.
TEST(L1, SgdComesNearTheOptimumWithExactZerosUnderEverySchemeFamily) {
  const Dataset& data = Problem();
  auto one = MakeTbbExecutor(1);
  TrainConfig cd =
      Config(Solver::kCd, SchemeKind::kSequential, 1, 300, ModelKind::kLogistic, Bias::kOn);
  Trainer best(cd, data, nullptr, *one);
  double optimum = 0;
  for (int e = 0; e < 300; ++e) optimum = best.RunEpoch().objective;
  for (const auto [scheme, threads] :
       {SchemeThreads{SchemeKind::kSequential, 1}, SchemeThreads{SchemeKind::kHogwild, 2},
        SchemeThreads{SchemeKind::kSync, 2}, SchemeThreads{SchemeKind::kAverage, 2}}) {
    SCOPED_TRACE(testing::Name(scheme));
    auto executor = MakeTbbExecutor(threads);
    TrainConfig c = Config(Solver::kSgd, scheme, threads, 60, ModelKind::kLogistic, Bias::kOn);
    if (scheme == SchemeKind::kSync) c.batch = 16;  // (the default 256 takes 6 steps an epoch)
    Trainer trainer(c, data, nullptr, *executor);
    EpochReport last;
    for (int e = 0; e < 60; ++e) last = trainer.RunEpoch();
    EXPECT_LT(last.objective, optimum * 1.01);
    EXPECT_GE(last.objective, optimum * (1 - 1e-6));
    EXPECT_GT(Zeros(trainer.model()), 0u);
    c.l1 = 0;
    c.l2 = 0;
    EXPECT_EQ(Zeros(testing::TrainModel(c, data, *executor)), 0u);
  }
}

// The command line: the setup names LIBLINEAR's C of the L1 problem, the last lines the nonzero
// weights, every metrics line its count; the model file's settings text holds l1.
TEST(L1, TheCommandLinePrintsTheNonzeroWeights) {
  testing::TempDir dir;
  const std::string data = dir.File("d.bin");
  ASSERT_EQ(testing::RunCli("gen " + data + " --rows 3000 --features 400 --nnz 10 --seed 5").status,
            0);
  const testing::CliResult run =
      testing::RunCli("train --train " + data +
                      " --solver cd --bias off --l1 0.001 --threads 1 --epochs 30 "
                      "--metrics " +
                      dir.File("m.jsonl") + " --save " + dir.File("l1.model"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "C = 1 / (rows l1) = 0.3333")) << run.output;
  const double nonzero = testing::After(run.output, "nonzero weights ");
  EXPECT_GT(nonzero, 0);
  EXPECT_LT(nonzero, 400);
  EXPECT_TRUE(testing::Contains(run.output, " of 400 (")) << run.output;
  const std::vector<std::string> lines = testing::Lines(testing::ReadFile(dir.File("m.jsonl")));
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(testing::Contains(
      lines.back(), "\"nonzero_weights\":" + std::to_string(static_cast<int>(nonzero)) + "}"))
      << lines.back();
  EXPECT_TRUE(testing::Contains(testing::ReadFile(dir.File("l1.model")), "\nl1=0.001\n"));
  const testing::CliResult dual =
      testing::RunCli("train --train " + data + " --solver dual-cd --bias off --l1 0.001");
  EXPECT_EQ(dual.status, 2);
  EXPECT_TRUE(testing::Contains(dual.output, "--l1 0.001 would be ignored")) << dual.output;
}

// The optimal schedule (1 / (alpha (t0 + t))) takes the whole penalty as scikit-learn's alpha:
// with --l1 alone, alpha = l1 (the auto L2 is 0); without any penalty it is refused.
TEST(L1, TheOptimalScheduleTakesTheL1Strength) {
  const Dataset& data = Problem();
  auto executor = MakeTbbExecutor(1);
  TrainConfig c =
      Config(Solver::kSgd, SchemeKind::kSequential, 1, 30, ModelKind::kLogistic, Bias::kOn);
  c.schedule = ScheduleKind::kOptimal;
  c.normalize = Normalization::kNone;
  Trainer trainer(c, data, nullptr, *executor);
  EXPECT_TRUE(std::isfinite(trainer.settings().eta0));
  EXPECT_NEAR(trainer.settings().decay, trainer.settings().eta0 * kL1 * double(data.rows()),
              1e-9 * trainer.settings().decay);
  EpochReport last;
  for (int e = 0; e < 30; ++e) last = trainer.RunEpoch();
  EXPECT_TRUE(std::isfinite(last.objective));
  EXPECT_GT(Zeros(trainer.model()), 0u);
  c.l1 = 0;
  c.l2 = 0;
  EXPECT_TRUE(testing::Contains(testing::Refusal(c), "needs l2 or l1 above 0"))
      << testing::Refusal(c);
}

TEST(L1, IsRefusedByNameWhereARunDoesNotTakeIt) {
  using testing::Refusal;
  TrainConfig c;
  c.l1 = 0.1;
  EXPECT_EQ(Refusal(c), "");
  c.solver = Solver::kDualCd;
  c.bias = Bias::kOff;
  EXPECT_TRUE(testing::Contains(Refusal(c), "l1")) << Refusal(c);
  c = TrainConfig{};
  c.l1 = 0.1;
  c.model = ModelKind::kMlp;
  EXPECT_TRUE(testing::Contains(Refusal(c), "l1")) << Refusal(c);
  c = TrainConfig{};
  c.l1 = 0.1;
  c.backend = Backend::kOffload;
  EXPECT_TRUE(testing::Contains(Refusal(c), "l1")) << Refusal(c);
}

}  // namespace
}  // namespace parsgd
