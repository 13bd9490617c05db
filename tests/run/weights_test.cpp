// Row and class weights: each row's loss and gradient scaled by its weight (the data's row
// weight times its class's, --class-weight), the weights scaled to a mean of 1 so that the
// objective is the weighted mean loss; every model, solver and backend weighs rows.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parsgd/exec/executor.hpp"
#include "parsgd/model/class_weights.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/rng.hpp"
#include "data_test_util.hpp"
#include "reference_solver.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::WithWeights;

// `data` with row i repeated times[i] times (0: left out).
Dataset Repeated(const Dataset& data, const std::vector<int>& times) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (uint64_t i = 0; i < data.rows(); ++i) {
    const SparseRow x = data.row(i);
    testing::Entries entries;
    for (uint32_t e = 0; e < x.nnz; ++e) entries.push_back({x.index[e], x.value[e]});
    for (int t = 0; t < times[i]; ++t) {
      rows.push_back(entries);
      labels.push_back(data.label(i));
    }
  }
  return testing::MakeDataset(rows, labels, data.features(), "repeated");
}

TEST(ClassWeights, ParseTheThreeForms) {
  EXPECT_TRUE(ParseClassWeights("none").none());
  EXPECT_TRUE(ParseClassWeights("balanced").balanced);
  const ClassWeightSpec given = ParseClassWeights("a:1,b:2.5,x:y:3,-1:0");
  ASSERT_EQ(given.given.size(), 4u);
  EXPECT_EQ(given.given[1], (std::pair<std::string, double>{"b", 2.5}));
  EXPECT_EQ(given.given[2], (std::pair<std::string, double>{"x:y", 3}));  // split at the last ':'
  EXPECT_EQ(given.given[3], (std::pair<std::string, double>{"-1", 0}));
  for (const char* bad : {"", "a", ":3", "a:", "a:-1", "a:nan", "a:inf", "a:1,", "a:1x"}) {
    EXPECT_THROW(ParseClassWeights(bad), Error) << bad;
  }
}

TEST(ClassWeights, BalancedIsRowsOverClassesTimesTheClassRowsAndNamedOnesAreByLabel) {
  const ClassLabels labels{{-1.f, 1.f}};
  const std::vector<uint64_t> counts = {90, 10};
  const std::vector<double> balanced =
      ClassWeightsOf(ParseClassWeights("balanced"), labels, counts);
  EXPECT_DOUBLE_EQ(balanced[0], 100.0 / (2 * 90));
  EXPECT_DOUBLE_EQ(balanced[1], 100.0 / (2 * 10));
  const std::vector<double> named = ClassWeightsOf(ParseClassWeights("1:4"), labels, counts);
  EXPECT_EQ(named, (std::vector<double>{1, 4}));
  testing::ExpectError([&] { ClassWeightsOf(ParseClassWeights("2:4"), labels, counts); },
                       {"class weight for '2': no class has that label; the classes are '-1', '1'"});
  testing::ExpectError([&] { ClassWeightsOf(ParseClassWeights("1:4,1:2"), labels, counts); },
                       {"class weight for '1' given twice"});
}

TEST(ClassWeights, MultiplyTheRowWeightsAndAllOnesAreNone) {
  const Dataset data = testing::MakeDataset({{{0, 1.f}}, {{0, 2.f}}, {{1, 1.f}}}, {0.f, 1.f, 1.f}, 2);
  Targets t = MakeTargets(ModelKind::kLogistic, WithWeights(data, {2.f, 1.f, 0.5f}));
  EXPECT_EQ(ClassCounts(t), (std::vector<uint64_t>{1, 2}));
  WeighClasses(t, std::vector<double>{3, 2});
  ASSERT_EQ(t.weights.size(), 3u);
  EXPECT_EQ(t.weights[0], 6.f);
  EXPECT_EQ(t.weights[1], 2.f);
  EXPECT_EQ(t.weights[2], 1.f);
  Targets ones = MakeTargets(ModelKind::kLogistic, data);
  WeighClasses(ones, std::vector<double>{1, 1});
  EXPECT_TRUE(ones.weights.empty());
}

// A step on a row of weight 2 is the step of weight 1 at twice the step size, and its loss twice
// the row's (plain SGD, no L2: every product is the same up to a power of two).
TEST(Weights, AStepOfWeightTwoIsAStepOfTwiceTheSize) {
  const uint32_t index[] = {0, 2};
  const float value[] = {0.5f, -1.5f};
  const SparseRow x{index, value, 2};
  auto step = [&](float weight, float eta, double* loss) {
    std::vector<float> w = {0.1f, 0.2f, -0.3f, 0.05f};  // 3 features and the bias
    SequentialScheme scheme;
    float z[1];
    *loss = LinearSgdStep<BinaryHead<LogisticLoss>, SgdRule>(
        {}, scheme, LinearParams{{w.data(), nullptr, nullptr}, 3, 1, nullptr}, x, -1.f, weight,
        MakeRuleContext(OptimizerConfig{.kind = OptimizerKind::kSgd}, eta, 1), z);
    return w;
  };
  double one = 0, two = 0;
  const std::vector<float> a = step(2.f, 0.25f, &two), b = step(1.f, 0.5f, &one);
  EXPECT_EQ(a, b);
  EXPECT_EQ(two, 2 * one);
}

// The weighted mean loss of a model is the mean loss over the rows repeated as often as their
// weights say (weights summing to other than the rows: the mean is over the weights).
TEST(Weights, TheWeightedLossIsTheLossOfTheRepeatedRows) {
  const Dataset data = testing::MakeProblem(60, 20, 5, 2, 0.1, 3);
  std::vector<int> times(data.rows());
  Rng rng(4);
  for (int& t : times) t = static_cast<int>(rng.Uniform(4));  // 0 to 3
  std::vector<float> w(times.begin(), times.end());
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.epochs = 3;
  c.l2 = 0.01;
  auto executor = MakeTbbExecutor(1);
  const Dataset train = WithWeights(data, w);  // the trainer keeps a reference
  Trainer weighted(c, train, nullptr, *executor);
  EpochReport last;
  for (int e = 0; e < c.epochs; ++e) last = weighted.RunEpoch();
  ASSERT_TRUE(last.train_weighted_accuracy.has_value());
  const Dataset repeated = Repeated(data, times);
  const Evaluation e = Evaluate(weighted.model(), repeated,
                                MakeTargets(ModelKind::kLogistic, repeated), *executor);
  double norm = 0;
  for (uint64_t j = 0; j < data.features(); ++j) {
    norm += static_cast<double>(weighted.model().weights()[j]) * weighted.model().weights()[j];
  }
  EXPECT_NEAR(last.objective, e.mean_loss + c.l2 / 2 * norm, 1e-6 * last.objective);
  EXPECT_NEAR(*last.train_weighted_accuracy, e.accuracy, 1e-9);
}

// Weighted SGD reaches the optimum of the problem whose rows are repeated as their weights say.
TEST(Weights, WeightedSgdReachesTheOptimumOfTheRepeatedRows) {
  const Dataset data = testing::MakeProblem(300, 30, 6, 2, 0.2, 5);
  std::vector<int> times(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) times[i] = 1 + static_cast<int>(i % 3);
  const Dataset repeated = Repeated(data, times);
  constexpr double kL2 = 0.01;
  const auto optimum = testing::SolveReference(
      ModelKind::kLogistic, repeated, testing::TargetValues(ModelKind::kLogistic, repeated), 1,
      kL2, 3000);
  const auto unweighted = testing::SolveReference(
      ModelKind::kLogistic, data, testing::TargetValues(ModelKind::kLogistic, data), 1, kL2, 3000);
  // The test can fail: the weights move the optimum. The unweighted optimum's objective on the
  // repeated rows (`ignored`) is what a run that ignored the weights would reach.
  ASSERT_GT(std::abs(unweighted.objective - optimum.objective), 1e-3);
  const double ignored = testing::ReferenceObjective(
      ModelKind::kLogistic, repeated, testing::TargetValues(ModelKind::kLogistic, repeated), 1, kL2,
      unweighted.weights);
  ASSERT_GT(ignored, optimum.objective * 1.009);
  // Atomic for the asynchronous schemes: Hogwild!'s two workers, each on its own core, overwrite
  // some of each other's steps on these 30 features and the shared bias, and ended up to 0.5%
  // above the optimum in twenty runs, too near `ignored` for the test to tell them apart; its
  // weighted step is the same code as atomic's but for the writes.
  for (SchemeKind scheme :
       {SchemeKind::kSequential, SchemeKind::kAtomic, SchemeKind::kSync, SchemeKind::kAverage}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.scheme = scheme;
    c.threads = scheme == SchemeKind::kSequential ? 1 : 2;
    c.batch = scheme == SchemeKind::kSync ? 8 : 0;  // 300 rows: sync's default is one step
    c.epochs = 60;
    c.l2 = kL2;
    std::vector<float> w(times.begin(), times.end());
    auto executor = MakeTbbExecutor(c.threads);
    const Dataset train = WithWeights(data, w);
    Trainer trainer(c, train, nullptr, *executor);
    EpochReport last;
    for (int e = 0; e < c.epochs; ++e) last = trainer.RunEpoch();
    EXPECT_GE(last.objective, optimum.objective * (1 - 1e-6));
    EXPECT_LE(last.objective, optimum.objective * 1.002);  // `ignored` is 0.9% above
  }
}

// --solver cd weighs rows too (LIBLINEAR's instance weights): integer weights reach the optimum of
// the repeated rows, with the bias or without, with an L1 term too, one worker or two.
TEST(Weights, WeightedCdReachesTheOptimumOfTheRepeatedRows) {
  const Dataset data = testing::MakeProblem(300, 30, 6, 2, 0.2, 5);
  std::vector<int> times(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) times[i] = static_cast<int>(i % 4);  // 0 to 3
  const Dataset repeated = Repeated(data, times);
  const Dataset weighted = WithWeights(data, std::vector<float>(times.begin(), times.end()));
  for (const ModelKind model : {ModelKind::kLogistic, ModelKind::kSquaredHinge}) {
    for (const Bias bias : {Bias::kOff, Bias::kOn}) {
      for (const double l1 : {0.0, 0.005}) {
        for (const auto [scheme, threads] :
             {std::pair{SchemeKind::kSequential, 1}, std::pair{SchemeKind::kHogwild, 2}}) {
          SCOPED_TRACE(testing::Name(model) + " bias " + std::to_string(int(bias)) + " l1 " +
                       std::to_string(l1) + " " + testing::Name(scheme));
          TrainConfig c;
          c.model = model;
          c.solver = Solver::kCd;
          c.bias = bias;
          c.scheme = scheme;
          c.threads = threads;
          c.l2 = 0.01;
          c.l1 = l1;
          c.epochs = 200;
          c.tol = 0;
          auto executor = MakeTbbExecutor(threads);
          auto last = [&](const Dataset& d) {
            Trainer trainer(c, d, nullptr, *executor);
            return testing::TrainFor(trainer, c.epochs).objective;
          };
          const double target = last(repeated);
          EXPECT_NEAR(last(weighted), target, 1e-6 * target);
        }
      }
    }
  }
}

// --solver newton weighs rows too: integer weights (0 among them) reach the optimum of the repeated
// rows, with the bias or without, on one thread or two.
TEST(Weights, WeightedNewtonReachesTheOptimumOfTheRepeatedRows) {
  const Dataset data = testing::MakeProblem(300, 30, 6, 2, 0.2, 5);
  std::vector<int> times(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) times[i] = static_cast<int>(i % 4);  // 0 to 3
  const Dataset repeated = Repeated(data, times);
  const Dataset weighted = WithWeights(data, std::vector<float>(times.begin(), times.end()));
  for (const ModelKind model :
       {ModelKind::kLogistic, ModelKind::kSquaredHinge, ModelKind::kSquared}) {
    for (const Bias bias : {Bias::kOff, Bias::kOn}) {
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(testing::Name(model) + " bias " + std::to_string(int(bias)) + ", " +
                     std::to_string(threads) + " threads");
        TrainConfig c;
        c.model = model;
        c.solver = Solver::kNewton;
        c.bias = bias;
        c.threads = threads;
        c.l2 = 0.01;
        c.epochs = 40;
        c.tol = 1e-10;
        auto executor = MakeTbbExecutor(threads);
        auto last = [&](const Dataset& d) {
          Trainer trainer(c, d, nullptr, *executor);
          return RunEpochs(trainer, {}, [](const EpochReport&, double) {}).last.objective;
        };
        const double target = last(repeated);
        EXPECT_NEAR(last(weighted), target, 1e-6 * target);
      }
    }
  }
}

// --solver dual-cd weighs rows too (each row's dual variable in a box of C w_i, LIBLINEAR's
// instance weights): integer weights (0 among them) reach the optimum of the repeated rows, the
// duality gap closed, for the three duals, one worker or two.
TEST(Weights, WeightedDualCdReachesTheOptimumOfTheRepeatedRows) {
  const Dataset data = testing::MakeProblem(300, 30, 6, 2, 0.2, 6);
  std::vector<int> times(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) times[i] = static_cast<int>(i % 4);  // 0 to 3
  const Dataset repeated = Repeated(data, times);
  const Dataset weighted = WithWeights(data, std::vector<float>(times.begin(), times.end()));
  for (const ModelKind model :
       {ModelKind::kHinge, ModelKind::kSquaredHinge, ModelKind::kLogistic}) {
    for (const auto [scheme, threads] :
         {std::pair{SchemeKind::kSequential, 1}, std::pair{SchemeKind::kAtomic, 2}}) {
      SCOPED_TRACE(testing::Name(model) + " " + testing::Name(scheme));
      TrainConfig c;
      c.model = model;
      c.solver = Solver::kDualCd;
      c.bias = Bias::kOff;
      c.scheme = scheme;
      c.threads = threads;
      c.l2 = 0.01;
      c.epochs = 300;
      c.tol = 0;
      auto executor = MakeTbbExecutor(threads);
      auto last = [&](const Dataset& d) {
        Trainer trainer(c, d, nullptr, *executor);
        return testing::TrainFor(trainer, c.epochs);
      };
      const EpochReport target = last(repeated);
      const EpochReport mine = last(weighted);
      EXPECT_NEAR(mine.objective, target.objective, 1e-5 * target.objective);
      ASSERT_TRUE(mine.dual_objective.has_value());
      EXPECT_NEAR(*mine.dual_objective, mine.objective, 1e-5 * mine.objective);  // the gap closed
    }
  }
}

// Weights that are all alike are no weights: the same model, bit for bit.
TEST(Weights, EqualWeightsAreTheUnweightedRun) {
  const Dataset data = testing::MakeProblem(200, 30, 6, 2, 0.1, 6);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.epochs = 2;
  auto executor = MakeTbbExecutor(1);
  Trainer plain(c, data, nullptr, *executor);
  const Dataset weighted = WithWeights(data, std::vector<float>(data.rows(), 3.f));
  Trainer threes(c, weighted, nullptr, *executor);
  for (int e = 0; e < c.epochs; ++e) {
    plain.RunEpoch();
    threes.RunEpoch();
  }
  EXPECT_TRUE(std::equal(plain.model().weights().begin(), plain.model().weights().end(),
                         threes.model().weights().begin()));
}

// --class-weight balanced on a set of 5% positives: the positives' recall rises, and the weighted
// accuracy reported is the balanced accuracy (the mean of the two recalls).
TEST(Weights, BalancedClassesRaiseTheRareClassRecall) {
  Rng rng(7);
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (int i = 0; i < 4000; ++i) {
    const bool positive = rng.UniformDouble() < 0.05;
    rows.push_back({{0, static_cast<float>(rng.Normal() + (positive ? 1.5 : 0))},
                    {1, static_cast<float>(rng.Normal())}});
    labels.push_back(positive ? 1.f : 0.f);
  }
  const Dataset data = testing::MakeDataset(rows, labels, 2);
  auto recalls = [&](const std::string& class_weight, EpochReport* last) {
    TrainConfig c;
    c.scheme = SchemeKind::kSequential;
    c.epochs = 5;
    c.class_weight = class_weight;
    auto executor = MakeTbbExecutor(1);
    Trainer trainer(c, data, nullptr, *executor);
    for (int e = 0; e < c.epochs; ++e) *last = trainer.RunEpoch();
    const std::vector<int> predicted = PredictClasses(trainer.model(), data, *executor);
    std::vector<double> right(2, 0), all(2, 0);
    for (uint64_t i = 0; i < data.rows(); ++i) {
      const int y = data.label(i) > 0 ? 1 : 0;
      all[y] += 1;
      right[y] += predicted[i] == y;
    }
    return std::vector<double>{right[0] / all[0], right[1] / all[1]};
  };
  EpochReport plain, balanced;
  const std::vector<double> before = recalls("none", &plain);
  const std::vector<double> after = recalls("balanced", &balanced);
  EXPECT_FALSE(plain.train_weighted_accuracy.has_value());
  EXPECT_GT(after[1], before[1] + 0.3);
  ASSERT_TRUE(balanced.train_weighted_accuracy.has_value());
  EXPECT_NEAR(*balanced.train_weighted_accuracy, (after[0] + after[1]) / 2, 1e-6);
}

// Auto L2 under weights: 1/rows times the heaviest class's mean weight (balanced on 90/10: 5).
TEST(Weights, AutoL2RegularisesTheHeaviestClassAsAnUnweightedRow) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (int i = 0; i < 100; ++i) {
    rows.push_back({{0, 1.f + static_cast<float>(i % 7)}});
    labels.push_back(i < 10 ? 1.f : -1.f);
  }
  const Dataset data = testing::MakeDataset(rows, labels, 1);
  auto executor = MakeTbbExecutor(1);
  TrainConfig c;
  const Trainer plain(c, data, nullptr, *executor);
  EXPECT_DOUBLE_EQ(plain.settings().l2, 1.0 / 100);
  c.class_weight = "balanced";
  const Trainer balanced(c, data, nullptr, *executor);
  EXPECT_NEAR(balanced.settings().l2, 5.0 / 100, 1e-9);
  c.l2 = 0.25;  // given: as it is
  const Trainer given(c, data, nullptr, *executor);
  EXPECT_EQ(given.settings().l2, 0.25);
}

// A checkpoint's data identity holds the (scaled) weights: a run resumed with other weights is
// another run; weights all alike are none, the unweighted run's identity.
TEST(Weights, TheDataIdentityHoldsTheWeights) {
  const Dataset data = testing::MakeProblem(80, 10, 3, 2, 0.1, 9);
  std::vector<float> w(data.rows(), 1.f), v(data.rows(), 1.f);
  w[3] = 2.f;
  v[4] = 2.f;
  const Dataset a = WithWeights(data, w), b = WithWeights(data, v),
                alike = WithWeights(data, std::vector<float>(data.rows(), 5.f));
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c;
  const std::string plain = Trainer(c, data, nullptr, *executor).DataIdentity();
  EXPECT_NE(Trainer(c, a, nullptr, *executor).DataIdentity(), plain);
  EXPECT_NE(Trainer(c, a, nullptr, *executor).DataIdentity(),
            Trainer(c, b, nullptr, *executor).DataIdentity());
  EXPECT_EQ(Trainer(c, alike, nullptr, *executor).DataIdentity(), plain);
}

// The MLP weighs rows: one full-batch step an epoch on rows weighted 1 to 3 is the step on the
// rows repeated as often, under every scheme whose step is one minibatch's (to rounding: the
// gradients are summed in another order), with the weights given by the rows or by their class.
TEST(Weights, AWeightedMlpStepIsTheStepOfTheRepeatedRows) {
  const Dataset data = testing::Blobs(60, 11);
  std::vector<int> times(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) times[i] = 1 + static_cast<int>(i % 3);
  const Dataset weighted = WithWeights(data, std::vector<float>(times.begin(), times.end()));
  const Dataset repeated = Repeated(data, times);
  // --class-weight 0:3 on the unweighted rows is class 0's rows repeated 3 times.
  std::vector<int> by_class(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) by_class[i] = data.label(i) == 0 ? 3 : 1;
  const Dataset class_repeated = Repeated(data, by_class);
  for (SchemeKind scheme :
       {SchemeKind::kSequential, SchemeKind::kSync, SchemeKind::kPipeline, SchemeKind::kVertical}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.model = ModelKind::kMlp;
    c.hidden = {8};
    c.scheme = scheme;
    c.threads = scheme == SchemeKind::kSequential ? 1 : 2;
    c.epochs = 4;
    c.tol = 0;
    c.learning_rate = 0.2;
    c.l2 = 1e-3;
    auto executor = MakeTbbExecutor(c.threads);
    auto params = [&](TrainConfig config, const Dataset& train) {
      config.batch = static_cast<int>(train.rows());  // one step an epoch
      Trainer trainer(config, train, nullptr, *executor);
      for (int e = 0; e < config.epochs; ++e) trainer.RunEpoch();
      const auto p = trainer.mlp_model().params();
      return std::vector<float>(p.begin(), p.end());
    };
    auto expect_near = [](const std::vector<float>& a, const std::vector<float>& b) {
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(a[i], b[i], 1e-5 + 1e-4 * std::abs(b[i])) << "parameter " << i;
      }
    };
    const std::vector<float> plain = params(c, data);
    const std::vector<float> rows = params(c, weighted);
    expect_near(rows, params(c, repeated));
    TrainConfig classes = c;
    classes.class_weight = "0:3";
    const std::vector<float> by_label = params(classes, data);
    expect_near(by_label, params(c, class_repeated));
    // The test can fail: the weights move the steps.
    double moved = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) moved += std::abs(rows[i] - plain[i]);
    EXPECT_GT(moved, 1e-2);
  }
}

// Every model, solver and backend weighs rows; what is refused is weights that cannot be: rows
// that all weigh 0, and class weights on real-valued labels.
TEST(Weights, WeightsThatCannotBeAreRefusedByName) {
  const Dataset data = testing::MakeProblem(50, 10, 3, 2, 0.1, 8);
  auto executor = MakeTbbExecutor(1);
  TrainConfig zero;
  testing::ExpectError(
      [&] {
        Trainer(zero, WithWeights(data, std::vector<float>(data.rows(), 0.f)), nullptr, *executor);
      },
      {"every row weighs 0"});
  std::vector<testing::Entries> rows;
  std::vector<float> values;
  for (int i = 0; i < 20; ++i) {
    rows.push_back({{0, static_cast<float>(i)}});
    values.push_back(0.5f * static_cast<float>(i));  // more than two values: a regression
  }
  const Dataset real = testing::MakeDataset(rows, values, 1, "real.svm");
  TrainConfig classes;
  classes.model = ModelKind::kHuber;  // regresses real values
  classes.class_weight = "balanced";
  testing::ExpectError([&] { Trainer(classes, real, nullptr, *executor); },
                       {"class-weight", "real.svm's labels are real values, not classes"});
}

}  // namespace
}  // namespace parsgd
