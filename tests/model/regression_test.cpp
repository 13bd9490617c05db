// Regression: the losses huber and epsilon-insensitive against hand computations; SGD reaching the
// Huber optimum (a gradient-descent reference) under every scheme; Huber's resistance to outlying
// targets; the insensitive tube; RMSE, MAE and R^2; which runs regress; the model file's record;
// a resumed run; the command line's train, predict and eval on real-valued labels, and its
// refusals.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "model/linear/linear_runner.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

constexpr int kFeatures = 6;
constexpr double kBias = 3;

// Dense rows x ~ N(0, 1) with real-valued labels x.w + 3 + noise (w = 1, -2, 0.5, ...), and every
// `outlier_every`-th target moved up by 50 (0: none).
Dataset RegressionProblem(int rows, double noise, int outlier_every, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss;
  std::vector<testing::Entries> entries(rows);
  std::vector<float> labels(rows);
  for (int i = 0; i < rows; ++i) {
    double y = kBias + noise * gauss(rng);
    for (uint32_t j = 0; j < kFeatures; ++j) {
      const auto v = static_cast<float>(gauss(rng));
      entries[i].push_back({j, v});
      y += v * (j % 2 == 0 ? 1.0 / (j + 1) : -2.0);
    }
    if (outlier_every > 0 && i % outlier_every == 0) y += 50;
    labels[i] = static_cast<float>(y);
  }
  return AsRealValues(testing::MakeDataset(entries, labels, kFeatures));
}

// The mean Huber loss of (w, b) plus (l2 / 2) ||w||^2, and its gradient, in double.
double HuberObjective(const Dataset& d, const std::vector<double>& w, double b, double eps,
                      double l2, std::vector<double>* grad_w, double* grad_b) {
  const auto n = static_cast<double>(d.rows());
  double f = 0;
  grad_w->assign(w.size(), 0.0);
  *grad_b = 0;
  for (uint64_t i = 0; i < d.rows(); ++i) {
    const SparseRow x = d.row(i);
    double z = b;
    for (uint32_t e = 0; e < x.nnz; ++e) z += w[x.index[e]] * x.value[e];
    const double r = z - d.label(i);
    const double psi = std::abs(r) <= eps ? r : (r > 0 ? eps : -eps);
    f += std::abs(r) <= eps ? r * r / 2 : eps * (std::abs(r) - eps / 2);
    for (uint32_t e = 0; e < x.nnz; ++e) (*grad_w)[x.index[e]] += psi * x.value[e] / n;
    *grad_b += psi / n;
  }
  for (std::size_t j = 0; j < w.size(); ++j) {
    f += l2 / 2 * w[j] * w[j] * n;
    (*grad_w)[j] += l2 * w[j];
  }
  return f / n;
}

// The optimum of that objective by gradient descent (smooth, with curvature at most
// max ||(x, 1)||^2 + l2): to a gradient norm of 1e-10.
double HuberOptimum(const Dataset& d, double eps, double l2) {
  double curvature = 0;
  for (uint64_t i = 0; i < d.rows(); ++i) {
    const SparseRow x = d.row(i);
    double s = 1;
    for (uint32_t e = 0; e < x.nnz; ++e) s += x.value[e] * x.value[e];
    curvature = std::max(curvature, s);
  }
  const double step = 1 / (curvature + l2);
  std::vector<double> w(d.features(), 0.0), gw;
  double b = 0, gb = 0, f = 0;
  for (int it = 0; it < 200000; ++it) {
    f = HuberObjective(d, w, b, eps, l2, &gw, &gb);
    double norm = gb * gb;
    for (double g : gw) norm += g * g;
    if (norm < 1e-20) break;
    for (std::size_t j = 0; j < w.size(); ++j) w[j] -= step * gw[j];
    b -= step * gb;
  }
  return f;
}

TEST(RegressionLoss, HuberIsHalfTheSquareWithinEpsilonAndLinearBeyond) {
  const HuberLoss loss{0.5f};
  float d = 0;
  EXPECT_FLOAT_EQ(loss.ValueAndDerivative(1.3f, 1.f, &d), 0.5f * 0.3f * 0.3f);
  EXPECT_FLOAT_EQ(d, 0.3f);
  EXPECT_FLOAT_EQ(loss.ValueAndDerivative(3.f, 1.f, &d),
                  0.5f * (2.f - 0.25f));  // eps (|r| - eps/2)
  EXPECT_FLOAT_EQ(d, 0.5f);
  EXPECT_FLOAT_EQ(loss.ValueAndDerivative(-3.f, 1.f, &d), 0.5f * (4.f - 0.25f));
  EXPECT_FLOAT_EQ(d, -0.5f);
  EXPECT_FLOAT_EQ(loss.Value(-3.f, 1.f), 0.5f * (4.f - 0.25f));
  // Continuous at the zone's edge: across 2e-4 of it the value moves by the slope (0.5) times that.
  EXPECT_NEAR(loss.Value(1.5f + 1e-4f, 1.f), loss.Value(1.5f - 1e-4f, 1.f), 1.1e-4);
}

TEST(RegressionLoss, EpsilonInsensitiveIsZeroInsideTheTube) {
  const EpsilonInsensitiveLoss loss{0.5f};
  float d = 7;
  EXPECT_EQ(loss.ValueAndDerivative(1.4f, 1.f, &d), 0.f);
  EXPECT_EQ(d, 0.f);
  EXPECT_FLOAT_EQ(loss.ValueAndDerivative(3.f, 1.f, &d), 1.5f);
  EXPECT_EQ(d, 1.f);
  EXPECT_FLOAT_EQ(loss.ValueAndDerivative(-1.f, 1.f, &d), 1.5f);
  EXPECT_EQ(d, -1.f);
  EXPECT_FLOAT_EQ(loss.Value(-1.f, 1.f), 1.5f);
}

TEST(RegressionLoss, TheHeadHoldsTheWidthItIsGiven) {
  float z = 4.f;
  const double loss = WithHead(Loss::kHuber, 2.f, 1,
                               [&](const auto& head) { return head.LossAndGradient(&z, 1, 1.f); });
  EXPECT_FLOAT_EQ(static_cast<float>(loss), 2.f * (3.f - 1.f));
  EXPECT_EQ(z, 2.f);
}

// Every scheme's SGD reaches the Huber objective's optimum (l2 > 0: one optimum) within 0.5%.
TEST(Regression, HuberSgdReachesTheOptimumUnderEveryScheme) {
  const Dataset data = RegressionProblem(400, 0.5, 10, 3);
  constexpr double kL2 = 0.01, kEps = 1.0;
  const double optimum = HuberOptimum(data, kEps, kL2);
  for (SchemeKind scheme :
       {SchemeKind::kSequential, SchemeKind::kHogwild, SchemeKind::kSync, SchemeKind::kAverage}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.model = ModelKind::kHuber;
    c.loss_epsilon = kEps;
    c.scheme = scheme;
    c.threads = scheme == SchemeKind::kSequential ? 1 : 2;
    c.batch = scheme == SchemeKind::kSync ? 8 : 0;
    c.epochs = 60;
    c.l2 = kL2;
    auto executor = MakeTbbExecutor(c.threads);
    Trainer trainer(c, data, nullptr, *executor);
    const EpochReport last = testing::TrainFor(trainer, c.epochs);
    EXPECT_TRUE(trainer.model().regression());
    EXPECT_EQ(trainer.model().loss_epsilon(), 1.f);
    ASSERT_TRUE(last.train_fit.has_value());
    EXPECT_GE(last.objective, optimum * (1 - 1e-6));
    EXPECT_LE(last.objective, optimum * 1.005);
  }
}

// With a tenth of the targets 50 too high, Huber's bias (width 1) stays near the true one (at
// the optimum the outliers' pull, a tenth of the width, balances the others' residuals: 0.11);
// least squares' is pulled up by about 5.
TEST(Regression, HuberResistsOutlyingTargetsWhereSquaredDoesNot) {
  const Dataset data = RegressionProblem(1000, 0.1, 10, 4);
  auto bias_of = [&](ModelKind model) {
    TrainConfig c;
    c.model = model;
    if (model == ModelKind::kHuber) c.loss_epsilon = 1;
    c.scheme = SchemeKind::kSequential;
    c.threads = 1;
    c.epochs = 30;
    c.l2 = 1e-6;
    auto executor = MakeTbbExecutor(1);
    Trainer trainer(c, data, nullptr, *executor);
    testing::TrainFor(trainer, c.epochs);
    return trainer.model().bias()[0];
  };
  EXPECT_NEAR(bias_of(ModelKind::kHuber), kBias, 0.5);
  EXPECT_GT(bias_of(ModelKind::kSquared), kBias + 4);
}

// Noise-free targets: the epsilon-insensitive fit leaves nearly every residual inside its tube.
TEST(Regression, EpsilonInsensitiveLeavesTheResidualsInItsTube) {
  const Dataset data = RegressionProblem(600, 0.0, 0, 5);
  TrainConfig c;
  c.model = ModelKind::kEpsilonInsensitive;
  c.loss_epsilon = 0.5;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.epochs = 40;
  c.l2 = 1e-6;
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(c, data, nullptr, *executor);
  const EpochReport last = testing::TrainFor(trainer, c.epochs);
  const LinearModel& m = trainer.model();
  int inside = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const SparseRow x = data.row(i);
    float z = 0;
    m.Scores(x.index, x.value, x.nnz, &z);
    inside += std::abs(z - data.label(i)) <= 0.55f;
  }
  EXPECT_GE(inside, 0.95 * data.rows());
  EXPECT_LT(last.objective, 0.05);
}

// `data` with every label times `factor`.
Dataset Scaled(const Dataset& data, float factor) {
  AlignedArray<float> labels(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) labels[i] = data.label(i) * factor;
  Dataset::Parts parts = data.parts();
  parts.labels = SharedArray<float>(std::move(labels));
  return Dataset(std::move(parts));
}

// The auto width and L2 follow the targets' scale: Huber on targets 100 times larger is the same
// fit 100 times larger (its zone and its objective scale with them); the insensitive loss's auto
// L2 is 100 times smaller.
// The auto width, L2 and step follow the targets' scale: targets 100 times as large give the
// same run 100 times as large (weights, width; the L2 so that the penalty weighs the same), for
// every loss under SGD and under the adaptive optimisers (whose steps are the same size whatever
// the gradients': prices in dollars fit as prices in thousands).
TEST(Regression, TheAutoWidthL2AndStepFollowTheTargetsScale) {
  const Dataset data = RegressionProblem(300, 0.5, 10, 8);
  const Dataset large = Scaled(data, 100.f);
  auto train = [](const Dataset& d, ModelKind model, OptimizerKind optimizer) {
    TrainConfig c;
    c.model = model;
    c.optimizer.kind = optimizer;
    c.scheme = SchemeKind::kSequential;
    c.threads = 1;
    c.epochs = 5;
    auto executor = MakeTbbExecutor(1);
    Trainer trainer(c, d, nullptr, *executor);
    testing::TrainFor(trainer, c.epochs);
    return std::make_tuple(trainer.model(), trainer.settings().l2, trainer.config().loss_epsilon);
  };
  for (const ModelKind model :
       {ModelKind::kSquared, ModelKind::kHuber, ModelKind::kEpsilonInsensitive}) {
    for (const OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
      const std::string what = fmt::format("{}, {}", static_cast<int>(model),
                                           static_cast<int>(optimizer));
      const auto [small_fit, small_l2, small_width] = train(data, model, optimizer);
      const auto [large_fit, large_l2, large_width] = train(large, model, optimizer);
      EXPECT_NEAR(large_width, 100 * small_width, 1e-4 * large_width) << what;
      if (model == ModelKind::kHuber) EXPECT_GT(small_width, 1.35 * 3);  // 1.35 times several units
      if (model == ModelKind::kEpsilonInsensitive) {
        EXPECT_GT(small_width, 0.1 * 3) << what;  // 0.1 times several units
        EXPECT_NEAR(large_l2, small_l2 / 100, 1e-6 * small_l2) << what;
      } else {
        EXPECT_EQ(small_l2, large_l2) << what;
      }
      for (std::size_t j = 0; j < small_fit.weights().size(); ++j) {
        EXPECT_NEAR(large_fit.weights()[j], 100 * small_fit.weights()[j],
                    1e-3 * std::abs(large_fit.weights()[j]) + 1e-3)
            << what << ", weight " << j;
      }
    }
  }
}

TEST(Regression, TheEvaluationMeasuresRmseMaeAndR2) {
  // Targets 1 and 3, both predicted 2 (the bias): residuals +-1, the targets' mean 2.
  const Dataset data = AsRealValues(testing::MakeDataset({{{0, 1.f}}, {{0, 1.f}}}, {1.f, 3.f}, 1));
  LinearModel m(ModelKind::kSquared, 1, 2);
  m.set_regression(true);
  m.weights()[1] = 2.f;
  auto executor = MakeTbbExecutor(1);
  const Targets t = MakeTargets(ModelKind::kSquared, data);
  ASSERT_TRUE(t.regression);
  Evaluation e = Evaluate(m, data, t, *executor);
  ASSERT_TRUE(e.regression);
  EXPECT_DOUBLE_EQ(e.rmse(), 1.0);
  EXPECT_DOUBLE_EQ(e.mae(), 1.0);
  EXPECT_DOUBLE_EQ(e.r2(), 0.0);  // no better than the mean
  EXPECT_DOUBLE_EQ(e.mean_loss, 0.5);
  // The exact fit: w = 0, b = 2 leaves 1 and 3 at +-1; w = 1 on x = (1, 3) reaches both.
  const Dataset apart = AsRealValues(testing::MakeDataset({{{0, 1.f}}, {{0, 3.f}}}, {1.f, 3.f}, 1));
  m.weights()[0] = 1.f;
  m.weights()[1] = 0.f;
  e = Evaluate(m, apart, MakeTargets(ModelKind::kSquared, apart), *executor);
  EXPECT_DOUBLE_EQ(e.rmse(), 0.0);
  EXPECT_DOUBLE_EQ(e.r2(), 1.0);
}

TEST(Regression, SquaredRegressesMoreThanTwoLabelValuesAndTheRegressorsAlways) {
  SoloCommunicator solo;
  const Dataset two = testing::MakeDataset({{}, {}, {}}, {0.f, 1.f, 1.f}, 1);
  const Dataset three = testing::MakeDataset({{}, {}, {}}, {0.f, 1.f, 2.5f}, 1);
  EXPECT_FALSE(RegressesLabels(ModelKind::kSquared, two, solo));
  EXPECT_TRUE(RegressesLabels(ModelKind::kSquared, three, solo));
  EXPECT_TRUE(RegressesLabels(ModelKind::kHuber, two, solo));
  EXPECT_TRUE(RegressesLabels(ModelKind::kEpsilonInsensitive, two, solo));
  EXPECT_FALSE(RegressesLabels(ModelKind::kLogistic, three, solo));
  EXPECT_FALSE(RegressesLabels(ModelKind::kSoftmax, three, solo));
  // The regressors read the labels as values whatever they are; text labels are classes.
  EXPECT_TRUE(MakeTargets(ModelKind::kHuber, two).regression);
  EXPECT_FALSE(MakeTargets(ModelKind::kSquared, two).regression);
  Dataset::Parts named = two.parts();
  named.class_names = {"a", "b"};
  const Dataset text(named);
  EXPECT_FALSE(RegressesLabels(ModelKind::kSquared, text, solo));
  EXPECT_THROW(AsRealValues(text), Error);
  EXPECT_THROW(MakeTargets(ModelKind::kHuber, text), Error);
}

TEST(Regression, TheModelFileKeepsTheTargetsAndTheWidth) {
  testing::TempDir dir;
  LinearModel huber(ModelKind::kHuber, 3, 2);
  huber.set_loss_epsilon(0.25f);
  huber.weights()[1] = 1.5f;
  SaveModel(huber, dir.File("h.model"), "");
  LinearModel squared(ModelKind::kSquared, 3, 2);
  squared.set_regression(true);
  SaveModel(squared, dir.File("s.model"), "");
  SaveModel(LinearModel(ModelKind::kSquared, 3, 2), dir.File("c.model"), "");
  const LoadedModel loaded = LoadModel(dir.File("h.model"));
  const auto& h = std::get<LinearModel>(loaded.model);
  EXPECT_EQ(h.kind(), ModelKind::kHuber);
  EXPECT_TRUE(h.regression());
  EXPECT_EQ(h.loss_epsilon(), 0.25f);
  EXPECT_EQ(h.weights()[1], 1.5f);
  EXPECT_TRUE(std::get<LinearModel>(LoadModel(dir.File("s.model")).model).regression());
  EXPECT_FALSE(std::get<LinearModel>(LoadModel(dir.File("c.model")).model).regression());
}

TEST(Regression, AResumedHuberRunEqualsTheStraightOne) {
  const Dataset data = RegressionProblem(300, 0.5, 10, 6);
  TrainConfig c;
  c.model = ModelKind::kHuber;
  c.loss_epsilon = 0.7;
  c.scheme = SchemeKind::kAverage;
  c.threads = 2;
  c.epochs = 4;
  auto executor = MakeTbbExecutor(2);
  Trainer straight(c, data, nullptr, *executor);
  testing::TrainFor(straight, 4);
  Trainer first(c, data, nullptr, *executor);
  testing::TrainFor(first, 2);
  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(first.Snapshot());
  testing::TrainFor(resumed, 2);
  EXPECT_TRUE(testing::SameBits(straight.model(), resumed.model()));
}

// Early stopping on a regression: the held-out rows' fit each epoch, the best epoch's in a
// checkpoint (a resumed run's last lines print it).
TEST(Regression, EarlyStoppingKeepsTheBestEpochsFitThroughACheckpoint) {
  const Dataset data = RegressionProblem(400, 0.5, 0, 9);
  TrainConfig c;
  c.model = ModelKind::kHuber;
  c.validation_fraction = 0.2;
  c.threads = 1;
  c.epochs = 6;
  auto executor = MakeTbbExecutor(1);
  Trainer first(c, data, nullptr, *executor);
  testing::TrainFor(first, 3);
  ASSERT_TRUE(first.best_epoch().has_value());
  ASSERT_TRUE(first.best_epoch()->validation_fit.has_value());
  EXPECT_GT(first.best_epoch()->validation_fit->r2, 0.9);
  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(first.Snapshot());
  ASSERT_TRUE(resumed.best_epoch().has_value());
  ASSERT_TRUE(resumed.best_epoch()->validation_fit.has_value());
  EXPECT_EQ(resumed.best_epoch()->validation_fit->rmse, first.best_epoch()->validation_fit->rmse);
  EXPECT_EQ(resumed.best_epoch()->train_fit->r2, first.best_epoch()->train_fit->r2);
}

// The command line: model squared regresses a file of real-valued labels (RMSE, MAE, R^2 in the
// lines and the metrics; predict writes values; eval measures them); two label values stay a
// classifier; the settings a regression cannot take are refused.
TEST(Regression, TheCommandLineTrainsPredictsAndEvaluatesARegression) {
  testing::TempDir dir;
  const Dataset data = RegressionProblem(500, 0.1, 0, 7);
  std::string text;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    text += fmt::format("{}", data.label(i));
    const SparseRow x = data.row(i);
    for (uint32_t e = 0; e < x.nnz; ++e) text += fmt::format(" {}:{}", x.index[e] + 1, x.value[e]);
    text += "\n";
  }
  const std::string file = dir.Write("r.svm", text);
  const testing::CliResult run = testing::RunCli(
      "train --train " + file + " --test " + file + " --model squared --threads 1 " +
      "--epochs 20 --save " + dir.File("r.model") + " --metrics " + dir.File("m.jsonl"));
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "train-rmse")) << run.output;
  EXPECT_TRUE(testing::Contains(run.output, "test-rmse")) << run.output;
  EXPECT_GT(testing::After(run.output, "R^2 "), 0.99) << run.output;
  const std::string last = testing::Lines(testing::ReadFile(dir.File("m.jsonl"))).back();
  EXPECT_TRUE(testing::Contains(last, "\"test_r2\":")) << last;
  EXPECT_TRUE(testing::Contains(last, "\"train_accuracy\":null")) << last;

  const testing::CliResult predicted =
      testing::RunCli("predict " + dir.File("r.model") + " " + file);
  ASSERT_EQ(predicted.status, 0) << predicted.output;
  const std::vector<std::string> values = testing::Lines(predicted.output);
  ASSERT_EQ(values.size(), data.rows());
  double squared = 0;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const double r = std::stod(values[i]) - data.label(i);
    squared += r * r;
  }
  EXPECT_LT(std::sqrt(squared / data.rows()), 0.3);

  const testing::CliResult eval = testing::RunCli("eval " + dir.File("r.model") + " " + file);
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_GT(testing::After(eval.output, "R^2 "), 0.99) << eval.output;
  EXPECT_FALSE(testing::Contains(eval.output, "precision")) << eval.output;

  // Two label values: least squares classifies, as it always has.
  const std::string binary = dir.Write("b.svm", "1 1:1\n-1 1:-1\n1 1:2\n-1 2:1\n");
  const testing::CliResult classifier =
      testing::RunCli("train --train " + binary + " --model squared --epochs 2 --threads 1");
  ASSERT_EQ(classifier.status, 0) << classifier.output;
  EXPECT_TRUE(testing::Contains(classifier.output, "train-acc")) << classifier.output;

  for (const std::string& refused :
       {std::string("--model huber --solver cd"), std::string("--model huber --backend offload"),
        std::string("--model huber --class-weight balanced"),
        std::string("--model logistic --loss-epsilon 0.5"),
        std::string("--model huber --validation-fraction 0.2 --validation-metric accuracy")}) {
    SCOPED_TRACE(refused);
    const testing::CliResult r =
        testing::RunCli("train --train " + file + " --threads 1 --epochs 1 " + refused);
    EXPECT_EQ(r.status, 2) << r.output;
  }
}

}  // namespace
}  // namespace parsgd
