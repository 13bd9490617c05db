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

RuleContext Context(float eta) {
  OptimizerConfig o;
  o.kind = OptimizerKind::kSgd;
  return MakeRuleContext(o, eta, 1);
}

TEST(L1Step, SgdSoftThresholdsThenShrinks) {
  const RuleContext c = Context(0.5f);
  // w = 1, loss gradient 0.2, L1 term 0.1, L2 term 0.4: v = 1 - 0.1 = 0.9, thresholded at
  // 0.5 x 0.1 = 0.05 to 0.85, shrunk by 1 / (1 + 0.5 x 0.4).
  float w = 1.f;
  ParamArrays p{&w, nullptr, nullptr};
  SgdRule::Apply<PlainWrite, true>(p, 0, 0.2f, SgdRule::Prepare(c, 0.4f), c, 0.1f);
  EXPECT_FLOAT_EQ(w, 0.85f / 1.2f);
  // A step that would cross 0, or end within the threshold of it, lands on exactly 0.
  for (const float start : {0.05f, 0.12f, 0.149f}) {
    w = start;
    SgdRule::Apply<PlainWrite, true>(p, 0, 0.2f, SgdRule::Prepare(c, 0.f), c, 0.1f);
    EXPECT_EQ(w, 0.f) << start;
  }
  w = -0.3f;  // negative side: -0.3 - 0.1 = -0.4, thresholded to -0.35
  SgdRule::Apply<PlainWrite, true>(p, 0, 0.2f, SgdRule::Prepare(c, 0.f), c, 0.1f);
  EXPECT_FLOAT_EQ(w, -0.35f);
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
  const std::vector<float> l1 = {0.2f, 1.f, 0.f};
  const uint32_t index[] = {0, 1};
  const float value[] = {1.f, 1.f};
  const LinearParams p{{w.data(), nullptr, nullptr}, 3, 1, nullptr, true, l1.data()};
  SequentialScheme scheme;
  float z[1];
  const RuleContext c = Context(0.1f);
  // Squared loss at target 0: z = 0.3 - 0.02 + 0 = 0.28, d = 0.28.
  LinearSgdStep<BinaryHead<SquaredLoss>, SgdRule>(scheme, p, SparseRow{index, value, 2}, 0.f, 1.f,
                                                   c, z);
  EXPECT_FLOAT_EQ(w[0], 0.3f - 0.1f * 0.28f - 0.1f * 0.2f);
  EXPECT_EQ(w[1], 0.f);    // -0.02 - 0.028, within 0.1 of 0: clipped
  EXPECT_EQ(w[2], 0.5f);   // not in the row
  EXPECT_FLOAT_EQ(w[3], -0.1f * 0.28f);  // the bias: the loss's step alone
}

// A minibatch's mean step weighs a feature's L1 term by the share of the rows that had it.
TEST(L1Step, AMinibatchWeighsTheTermByTheRowsThatHadTheFeature) {
  float w = 1.f;
  float sum[1] = {0.8f};  // summed gradient of 4 rows, 2 of which had the feature
  const float l1[1] = {0.4f};
  const RuleContext c = Context(0.5f);
  ApplyFeatureMean<SgdRule, PlainWrite>(ParamArrays{&w, nullptr, nullptr}, nullptr, 0, 1, sum, 2,
                                        0.25f, c, l1);
  // mean gradient 0.2: v = 1 - 0.1 = 0.9, thresholded at 0.5 x 0.4 x 2/4 = 0.1.
  EXPECT_FLOAT_EQ(w, 0.8f);
  EXPECT_EQ(sum[0], 0.f);
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
  TrainConfig c = Config(Solver::kCd, SchemeKind::kSequential, 1, 150, ModelKind::kLogistic,
                         Bias::kOn);
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
  TrainConfig c = Config(Solver::kCd, SchemeKind::kSequential, 1, 1000, ModelKind::kLogistic,
                         Bias::kOff);
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

// SGD (truncated gradient at the per-feature rate) comes within 1% of cd's optimum under each
// scheme family. One worker's steps (sequential; average's replicas, combined where every replica
// has the weight at 0) leave weights at exactly 0, and without the penalty none is; under hogwild
// and sync the gradient noise of these common features outweighs a step's threshold, and cd is the
// way to the optimum's zeros (docs/cli.md).
TEST(L1, SgdComesNearTheOptimumWithExactZerosUnderEverySchemeFamily) {
  const Dataset& data = Problem();
  auto one = MakeTbbExecutor(1);
  TrainConfig cd = Config(Solver::kCd, SchemeKind::kSequential, 1, 300, ModelKind::kLogistic,
                          Bias::kOn);
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
    if (scheme == SchemeKind::kSequential || scheme == SchemeKind::kAverage) {
      EXPECT_GT(Zeros(trainer.model()), 0u);
    }
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
  const testing::CliResult run = testing::RunCli(
      "train --train " + data + " --solver cd --bias off --l1 0.001 --threads 1 --epochs 30 "
      "--metrics " + dir.File("m.jsonl") + " --save " + dir.File("l1.model"));
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
