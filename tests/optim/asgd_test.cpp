// Averaged SGD (--asgd): the lazy means equal the eager mean of the iterates, for per-sample steps
// (a feature a step skips caught up at its next touch; one and several outputs) and for minibatch
// steps; the trainer evaluates and saves the mean, checked against the iterates of the same run
// without averaging; a resumed run keeps its bits; the runs that cannot average refuse it by name.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/linear/gradient_sum.hpp"
#include "parsgd/config/settings.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/linear/average.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/error.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

// Five rows over four features, each skipping some of them.
Dataset SkippingRows() {
  return testing::MakeDataset({{{0, 1.f}, {2, 0.5f}},
                               {{1, -1.f}},
                               {{0, 0.3f}, {3, 2.f}},
                               {{2, 1.f}},
                               {{1, 0.5f}, {3, -1.f}}},
                              {1, -1, 1, -1, 1}, 4);
}

// The eager mean of weights `w` after each step t with t + 1 > start, over the steps after start.
struct EagerMean {
  std::vector<double> sum;
  uint64_t count = 0;
  void Add(const std::vector<float>& w) {
    sum.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) sum[i] += w[i];
    ++count;
  }
  double At(std::size_t i) const { return sum[i] / static_cast<double>(count); }
};

// Per-sample steps: every feature's mean brought up to date only where a step touches it, and
// all of them at the end, equals the mean of every iterate after the start.
void CheckPerSampleSteps(int outputs) {
  const Dataset data = SkippingRows();
  const uint64_t features = data.features();
  const std::size_t size = (features + 1) * outputs;
  std::vector<float> w(size, 0.f), mean(size, 0.f);
  constexpr uint64_t kStart = 3, kSteps = 23;
  std::vector<uint64_t> since(features + 1, kStart);
  const LazyAverage average{mean.data(), since.data(), kStart};
  const LinearParams p{
      {w.data(), nullptr, nullptr}, features, outputs, nullptr, true, nullptr, &average};
  SequentialScheme scheme;
  std::vector<float> z(outputs);
  RuleContext c = testing::SgdContext(0.3f);
  EagerMean eager;
  for (uint64_t t = 0; t < kSteps; ++t) {
    c.samples = t;
    const uint32_t r = static_cast<uint32_t>(t % data.rows());
    if (outputs == 1) {
      LinearSgdStep<BinaryHead<ScoreLoss>, SgdRule>({}, scheme, p, data.row(r), r % 2 ? -1.f : 1.f,
                                                    1.f, c, z.data());
    } else {
      LinearSgdStep<SoftmaxHead, SgdRule>({}, scheme, p, data.row(r),
                                          static_cast<float>(r % outputs), 1.f, c, z.data());
    }
    if (t + 1 > kStart) eager.Add(w);
  }
  CatchUpAll(average, w.data(), features, outputs, kSteps);
  bool moved = false;  // some mean differs from the last iterate: the check is not vacuous
  for (std::size_t i = 0; i < size; ++i) {
    EXPECT_NEAR(mean[i], eager.At(i), 1e-6) << "coordinate " << i;
    moved |= std::abs(mean[i] - w[i]) > 1e-3f;
  }
  EXPECT_TRUE(moved);
}

TEST(AsgdStep, LazyMeansOfPerSampleStepsAreTheMeanOfTheIterates) { CheckPerSampleSteps(1); }
TEST(AsgdStep, LazyMeansOfSoftmaxStepsAreTheMeanOfTheIterates) { CheckPerSampleSteps(3); }

// Minibatch steps (the sync scheme's): each step's iterate stands for its batch's samples.
TEST(AsgdStep, LazyMeansOfMinibatchStepsAreTheMeanOfTheIterates) {
  const Dataset data = SkippingRows();
  const uint64_t features = data.features();
  std::vector<float> w(features + 1, 0.f), mean(features + 1, 0.f), sum(features + 1, 0.f);
  std::vector<uint32_t> count(features, 0);
  constexpr uint64_t kBatch = 2, kStart = 4, kSteps = 12;
  std::vector<uint64_t> since(features + 1, kStart);
  const LazyAverage average{mean.data(), since.data(), kStart};
  const LinearParams p{{w.data(), nullptr, nullptr}, features, 1, nullptr, true, nullptr, &average};
  GradientSum<1> gradient(sum.data(), count.data(), features, 1);
  const BinaryHead<ScoreLoss> head{};
  RuleContext c = testing::SgdContext(0.5f);
  EagerMean eager;
  uint64_t row = 0;
  for (uint64_t s = 0; s < kSteps; ++s) {
    // Rows 1 and 3 touch one feature each: most steps leave some feature out.
    for (uint64_t b = 0; b < kBatch; ++b, ++row) {
      const uint32_t r = static_cast<uint32_t>(row % data.rows());
      float d = 0;
      LinearScores<1>(p, data.row(r), &d);
      head.LossAndGradient(&d, 1, r % 2 ? -1.f : 1.f);
      gradient.Add(data.row(r), &d, nullptr, [](uint32_t) { return true; });
      gradient.AddBias(&d);
    }
    c.samples = s * kBatch;
    gradient.ApplyAndClear<SgdRule, PlainWrite>(p, kBatch, c);
    if ((s + 1) * kBatch > kStart) eager.Add(w);
  }
  CatchUpAll(average, w.data(), features, 1, kSteps * kBatch);
  for (uint64_t i = 0; i <= features; ++i) {
    EXPECT_NEAR(mean[i], eager.At(i), 1e-6) << "coordinate " << i;
  }
}

// The models after each epoch of a run without averaging, and the model of the same run with
// --asgd `start`.
struct Runs {
  std::vector<LinearModel> iterates;
  LinearModel averaged;
};
Runs TrainBoth(TrainConfig c, const Dataset& data, double start) {
  auto executor = MakeTbbExecutor(1);
  Runs out;
  c.asgd = kAsgdOff;
  Trainer plain(c, data, nullptr, *executor);
  for (int e = 0; e < c.epochs; ++e) {
    plain.RunEpoch();
    out.iterates.push_back(plain.model());
  }
  c.asgd = start;
  Trainer averaging(c, data, nullptr, *executor);
  testing::TrainFor(averaging, c.epochs);
  out.averaged = averaging.model();
  return out;
}
// The mean of the iterates after epochs start + 1 .. end, against the averaged model.
void ExpectMeanOfEpochs(const Runs& runs, int start) {
  const std::size_t size = runs.averaged.weights().size();
  for (std::size_t i = 0; i < size; ++i) {
    double sum = 0;
    for (std::size_t e = start; e < runs.iterates.size(); ++e) sum += runs.iterates[e].weights()[i];
    const double mean = sum / static_cast<double>(runs.iterates.size() - start);
    EXPECT_NEAR(runs.averaged.weights()[i], mean, 1e-5 * (1 + std::abs(mean))) << "weight " << i;
  }
  EXPECT_FALSE(testing::SameBits(runs.averaged, runs.iterates.back()));
}

// One minibatch of every row: one step an epoch, so the run's iterates are its epochs' models.
TEST(Asgd, TheTrainerSavesTheMeanOfTheMinibatchIterates) {
  const Dataset data = testing::MakeProblem(60, 12, 4, 2, 0.1, 7);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.batch = 60;
  c.epochs = 7;
  ExpectMeanOfEpochs(TrainBoth(c, data, 3), 3);
}

// One row: one per-sample step an epoch.
TEST(Asgd, TheTrainerSavesTheMeanOfThePerSampleIterates) {
  const Dataset data = testing::MakeDataset({{{0, 1.f}, {3, -0.5f}}}, {1}, 5);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.epochs = 6;
  c.schedule = ScheduleKind::kConstant;
  ExpectMeanOfEpochs(TrainBoth(c, data, 0), 0);
}

TEST(Asgd, OnStartsAfterTheFirstEpochOrAtTheStartOfAOneEpochRun) {
  const Dataset data = testing::MakeProblem(60, 12, 4, 2, 0.1, 7);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.batch = 60;
  c.epochs = 4;
  c.asgd = kAsgdAuto;
  auto executor = MakeTbbExecutor(1);
  Trainer on(c, data, nullptr, *executor);
  EXPECT_EQ(on.settings().asgd_start, 60);
  ExpectMeanOfEpochs(TrainBoth(c, data, kAsgdAuto), 1);
  c.epochs = 1;
  Trainer one(c, data, nullptr, *executor);
  EXPECT_EQ(one.settings().asgd_start, 0);
}

// The averaged model's objective and accuracy are the ones reported.
TEST(Asgd, TheReportMeasuresTheAveragedModel) {
  const Dataset data = testing::MakeProblem(300, 40, 6, 2, 0.05, 3);
  TrainConfig c;
  c.scheme = SchemeKind::kHogwild;
  c.threads = 2;
  c.epochs = 4;
  c.asgd = 1;
  auto executor = MakeTbbExecutor(2);
  Trainer t(c, data, nullptr, *executor);
  const EpochReport r = testing::TrainFor(t, 4);
  const Evaluation e = Evaluate(t.model(), data, MakeTargets(c.model, data), *executor);
  EXPECT_NEAR(r.train_accuracy, e.accuracy, 1e-12);
  EXPECT_GT(r.train_accuracy, 0.8);
}

// A run stopped after 2 of 4 epochs and resumed ends with the same bits as the run in one go:
// one model, and the replicas (per sample and in minibatches; gossip's differ at an epoch's end).
TEST(Asgd, AResumedRunKeepsItsBits) {
  const Dataset data = testing::MakeProblem(200, 30, 5, 2, 0.05, 11);
  for (const auto& [scheme, batch] :
       {std::pair{SchemeKind::kSequential, 0}, std::pair{SchemeKind::kAverage, 1},
        std::pair{SchemeKind::kAverage, 8}, std::pair{SchemeKind::kGossip, 1}}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c;
    c.scheme = scheme;
    c.batch = batch;
    c.threads = scheme == SchemeKind::kSequential ? 1 : 2;
    c.period = scheme == SchemeKind::kSequential ? -1 : 3;
    c.epochs = 4;
    c.asgd = 1;
    auto executor = MakeTbbExecutor(c.threads);
    Trainer straight(c, data, nullptr, *executor);
    testing::TrainFor(straight, 4);
    testing::TempDir dir;
    Trainer first(c, data, nullptr, *executor);
    testing::TrainFor(first, 2);
    SaveCheckpoint({first.RunIdentity(), first.DataIdentity(), first.Snapshot()},
                   dir.File("two.ckpt"));
    Trainer resumed(c, data, nullptr, *executor);
    resumed.Restore(LoadCheckpoint(dir.File("two.ckpt")).state);
    testing::TrainFor(resumed, 2);
    EXPECT_TRUE(testing::SameBits(straight.model(), resumed.model()));
  }
}

// The replica schemes average the replicas' mean model over time: with one worker the average
// scheme's replica is the sequential scheme's model (the same steps), and so is its mean, to
// rounding (the combining steps cut the catch-up intervals where the sequential run does not);
// with two, the mean of the last 11 epochs' iterates lies near the last and is not it. (Against an
// independent computation, the ranks' means: tests/run/ranks_trainer_test.cpp.)
TEST(Asgd, TheReplicasAverageTheirMeanModel) {
  const Dataset data = testing::MakeProblem(400, 40, 6, 2, 0.05, 12);
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.order = OrderKind::kSequential;
  c.threads = 1;
  c.epochs = 4;
  c.asgd = 1;
  auto alone = MakeTbbExecutor(1);
  const LinearModel sequential = testing::TrainModel(c, data, *alone);
  TrainConfig replica = c;
  replica.scheme = SchemeKind::kAverage;
  replica.batch = 1;
  replica.period = 7;
  const LinearModel one = testing::TrainModel(replica, data, *alone);
  for (std::size_t i = 0; i < one.weights().size(); ++i) {
    EXPECT_NEAR(one.weights()[i], sequential.weights()[i],
                1e-5 + 1e-4 * std::abs(sequential.weights()[i]))
        << "weight " << i;
  }
  replica.threads = 2;
  replica.epochs = 12;
  auto executor = MakeTbbExecutor(2);
  Trainer two(replica, data, nullptr, *executor);
  const EpochReport averaged = testing::TrainFor(two, 12);
  replica.asgd = kAsgdOff;
  Trainer iterate(replica, data, nullptr, *executor);
  const EpochReport plain = testing::TrainFor(iterate, 12);
  EXPECT_FALSE(testing::SameBits(two.model(), iterate.model()));
  EXPECT_NEAR(averaged.objective, plain.objective, 0.03 * plain.objective);  // 1.5% here
}

TEST(Asgd, TheRunsThatCannotAverageRefuseItByName) {
  TrainConfig c;
  c.asgd = 1;
  c.scheme = SchemeKind::kElastic;
  EXPECT_TRUE(testing::Contains(testing::Refusal(c), "asgd")) << testing::Refusal(c);
  c.scheme = SchemeKind::kAuto;
  c.model = ModelKind::kMlp;
  EXPECT_TRUE(testing::Contains(testing::Refusal(c), "asgd")) << testing::Refusal(c);
  c.model = ModelKind::kHinge;
  c.solver = Solver::kDualCd;
  c.bias = Bias::kOff;
  EXPECT_TRUE(testing::Contains(testing::Refusal(c), "asgd")) << testing::Refusal(c);
  // Off is no averaging, which every run does: given, it is never refused.
  c.asgd = kAsgdOff;
  EXPECT_EQ(WhyNotApplied(FindSetting("asgd"), c, 1), "");
  c = TrainConfig{};
  c.asgd = 1;
  EXPECT_EQ(testing::Refusal(c), "");
  EXPECT_NO_THROW(ValidateConfig(c, 2));  // across ranks: tests/scheme/ranks_schemes_test.cpp
  // Averaging that would start after the last epoch.
  const Dataset data = testing::MakeProblem(50, 10, 3, 2, 0.0, 5);
  c.epochs = 3;
  c.asgd = 3;
  auto executor = MakeTbbExecutor(1);
  try {
    Trainer t(c, data, nullptr, *executor);
    ADD_FAILURE() << "accepted";
  } catch (const SettingError& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "after the last of the 3 epochs")) << e.what();
  }
}

TEST(Asgd, AutoChoosesTheReplicasForAnAveragingRunToo) {
  // Dense rows: the rule takes the per-sample replicas (average) on 2 threads, averaging or not.
  const Dataset data = testing::Blobs(400, 3);
  TrainConfig c;
  c.model = ModelKind::kSoftmax;
  c.threads = 2;
  c.epochs = 2;
  auto executor = MakeTbbExecutor(2);
  c.asgd = kAsgdOff;
  EXPECT_EQ(Trainer(c, data, nullptr, *executor).settings().scheme, SchemeKind::kAverage);
  c.asgd = kAsgdAuto;
  EXPECT_EQ(Trainer(c, data, nullptr, *executor).settings().scheme, SchemeKind::kAverage);
}

}  // namespace
}  // namespace parsgd
