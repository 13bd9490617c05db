// --scheme auto (src/run/scheme_choice.hpp): the rule, and the trainer applying it.
#include "run/scheme_choice.hpp"

#include <gtest/gtest.h>

#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TrainConfig Auto(ModelKind model) {
  TrainConfig c;
  c.model = model;
  EXPECT_EQ(c.scheme, SchemeKind::kAuto) << "auto is the default";
  return c;
}

TEST(SchemeChoice, OneThreadIsSequentialForEveryModel) {
  for (ModelKind m : {ModelKind::kLogistic, ModelKind::kSoftmax, ModelKind::kMlp}) {
    EXPECT_EQ(ChooseScheme(Auto(m), 1, 100, -1).scheme, SchemeKind::kSequential);
    EXPECT_FALSE(NeedsRoundTrip(Auto(m), 1));
  }
}

TEST(SchemeChoice, MlpAveragesReplicasWhateverTheMachine) {
  for (double trip : {-1.0, 50.0, 1000.0}) {
    EXPECT_EQ(ChooseScheme(Auto(ModelKind::kMlp), 2, trip, -1).scheme, SchemeKind::kAverage);
  }
  EXPECT_FALSE(NeedsRoundTrip(Auto(ModelKind::kMlp), 16));
}

TEST(SchemeChoice, LinearSharesTheModelOnlyBetweenNearThreads) {
  const TrainConfig c = Auto(ModelKind::kLogistic);
  EXPECT_TRUE(NeedsRoundTrip(c, 2));
  EXPECT_EQ(ChooseScheme(c, 2, 120, -1).scheme, SchemeKind::kHogwild);
  EXPECT_EQ(ChooseScheme(c, 8, kNearRoundTripNs, -1).scheme, SchemeKind::kHogwild);
  EXPECT_EQ(ChooseScheme(c, 2, kNearRoundTripNs + 1, -1).scheme, SchemeKind::kSequential);
  EXPECT_EQ(ChooseScheme(c, 2, 480, -1).scheme, SchemeKind::kSequential);
  EXPECT_EQ(ChooseScheme(c, 2, -1, -1).scheme, SchemeKind::kSequential) << "not measured: far";
  EXPECT_NE(ChooseScheme(c, 2, 480, -1).reason.find("480 ns"), std::string::npos);
  // Far threads, but writes spread over many lines: collisions are rare, Hogwild! scales.
  EXPECT_EQ(ChooseScheme(c, 2, 480, kSpreadWriteLines).scheme, SchemeKind::kHogwild);
  EXPECT_EQ(ChooseScheme(c, 2, -1, 66000).scheme, SchemeKind::kHogwild);
  EXPECT_EQ(ChooseScheme(c, 2, 480, kSpreadWriteLines - 1).scheme, SchemeKind::kSequential);
  EXPECT_NE(ChooseScheme(c, 2, 480, 50).reason.find("50 cache lines"), std::string::npos);
}

// An epoch of a few thousand nonzeros (a table of a few hundred rows): one worker, the threads'
// distance left unmeasured (the measurement outlasts the training); replicas still where their
// periods hold enough.
TEST(SchemeChoice, ATinyEpochStaysOnOneWorker) {
  const TrainConfig c = Auto(ModelKind::kLogistic);
  const SchemeChoice tiny = ChooseScheme(c, 2, -1, -1, 1.0, 1344);
  EXPECT_EQ(tiny.scheme, SchemeKind::kSequential);
  EXPECT_NE(tiny.reason.find("1344 nonzeros times outputs an epoch"), std::string::npos)
      << tiny.reason;
  EXPECT_EQ(ChooseScheme(c, 2, 120, -1, 1.0, kShareableWork).scheme, SchemeKind::kHogwild);
  EXPECT_EQ(ChooseScheme(c, 2, -1, -1, kReplicaWork, 1344).scheme, SchemeKind::kAverage);
}

// Periods that hold many times the model: per-sample replicas, with --batch 1, near threads or
// far; a period too small for its model falls to the round-trip rules.
TEST(SchemeChoice, LinearTakesPerSampleReplicasWhereAPeriodOutweighsTheModel) {
  const TrainConfig c = Auto(ModelKind::kLogistic);
  const SchemeChoice replicas = ChooseScheme(c, 2, 480, 50, kReplicaWork);
  EXPECT_EQ(replicas.scheme, SchemeKind::kAverage);
  EXPECT_EQ(replicas.batch, 1);
  EXPECT_NE(replicas.reason.find("replicas"), std::string::npos) << replicas.reason;
  EXPECT_EQ(ChooseScheme(c, 2, -1, 50, 35).scheme, SchemeKind::kAverage) << "not measured: far";
  EXPECT_EQ(ChooseScheme(c, 2, 120, 50, 35).scheme, SchemeKind::kAverage)
      << "near: replicas all the same";
  EXPECT_EQ(ChooseScheme(c, 2, 120, 50, 1.2).scheme, SchemeKind::kHogwild);
  EXPECT_EQ(ChooseScheme(c, 2, 480, 50, kReplicaWork - 0.1).scheme, SchemeKind::kSequential);
  EXPECT_EQ(ChooseScheme(c, 2, 480, kSpreadWriteLines, 1.2).scheme, SchemeKind::kHogwild);
  TrainConfig deterministic = c;
  deterministic.deterministic = true;
  EXPECT_EQ(ChooseScheme(deterministic, 2, 480, 50, 35).scheme, SchemeKind::kSequential);
}

// A tenth of each worker's shard (rounded up), times the mean nonzeros per row, per feature.
TEST(SchemeChoice, ReplicaWorkIsAPeriodsNonzerosPerFeature) {
  std::vector<testing::Entries> rows(101, testing::Entries{{0, 1.f}, {3, 1.f}});
  const Dataset data = testing::MakeDataset(rows, std::vector<float>(101, 1.f), 9);
  // shard ceil(101 / 2) = 51, period ceil(51 / 10) = 6 rows of 2 nonzeros, 9 + 1 features.
  EXPECT_DOUBLE_EQ(ReplicaWork(data, 2), 6 * 2 / 10.0);
  EXPECT_DOUBLE_EQ(ReplicaWork(data, 1), 11 * 2 / 10.0);  // one shard of 101: a period of 11
}

// (sum n_l)^2 / sum n_l^2 over the weight lines (16 floats each) that the nonzeros fall on.
TEST(SchemeChoice, EffectiveWriteLinesCountsTheLinesWritesSpreadOver) {
  // 64 features = 4 lines of binary weights; every row touches one feature of each line: uniform.
  std::vector<testing::Entries> uniform(10, {{0, 1.f}, {16, 1.f}, {32, 1.f}, {48, 1.f}});
  const Dataset spread = testing::MakeDataset(uniform, std::vector<float>(10, 1.f), 64);
  EXPECT_DOUBLE_EQ(EffectiveWriteLines(spread, 1), 4.0);
  // With 4 outputs a feature takes 4 floats: features 0, 16, 32, 48 sit on lines 0, 4, 8, 12.
  EXPECT_DOUBLE_EQ(EffectiveWriteLines(spread, 4), 4.0);
  // Every nonzero on line 0 (features 0-15): one effective line.
  std::vector<testing::Entries> hot(10, {{1, 1.f}, {2, 1.f}, {15, 1.f}});
  EXPECT_DOUBLE_EQ(
      EffectiveWriteLines(testing::MakeDataset(hot, std::vector<float>(10, 1.f), 64), 1), 1.0);
  // Three nonzeros on line 0 and one on line 1: 16 / (9 + 1).
  std::vector<testing::Entries> skewed(1, {{0, 1.f}, {1, 1.f}, {2, 1.f}, {20, 1.f}});
  EXPECT_DOUBLE_EQ(
      EffectiveWriteLines(testing::MakeDataset(skewed, std::vector<float>(1, 1.f), 64), 1), 1.6);
}

TEST(SchemeChoice, FixedRulesWhereTimingMustNotDecide) {
  TrainConfig c = Auto(ModelKind::kLogistic);
  c.deterministic = true;
  EXPECT_FALSE(NeedsRoundTrip(c, 2));
  EXPECT_EQ(ChooseScheme(c, 2, 100, -1).scheme, SchemeKind::kSequential);
  c.batch = 64;  // minibatch SGD on one worker, near cores or far, at any thread count
  EXPECT_FALSE(NeedsRoundTrip(c, 2));
  EXPECT_EQ(ChooseScheme(c, 2, 100, -1).scheme, SchemeKind::kSequential);
  EXPECT_EQ(ChooseScheme(c, 64, 100, 1e6, 1e6).scheme, SchemeKind::kSequential);
  c.deterministic = false;
  c.batch = 0;
  c.backend = Backend::kOffload;
  EXPECT_FALSE(NeedsRoundTrip(c, 2));
  EXPECT_EQ(ChooseScheme(c, 2, -1, -1).scheme, SchemeKind::kHogwild);
  c.deterministic = true;
  EXPECT_EQ(ChooseScheme(c, 2, -1, -1).scheme, SchemeKind::kSequential);
  c.deterministic = false;
  c.batch = 256;
  EXPECT_EQ(ChooseScheme(c, 2, -1, -1).scheme, SchemeKind::kSync);
}

TEST(SchemeChoice, MinibatchesSpreadOverTheWorkersOnlyOnNearCores) {
  TrainConfig c = Auto(ModelKind::kLogistic);
  c.batch = 64;
  EXPECT_TRUE(NeedsRoundTrip(c, 2));
  EXPECT_EQ(ChooseScheme(c, 2, 100, -1).scheme, SchemeKind::kSync);
  EXPECT_EQ(ChooseScheme(c, 2, kNearRoundTripNs, -1).scheme, SchemeKind::kSync);
  // Far or unmeasured: one worker, whatever the data says for per-sample schemes.
  EXPECT_EQ(ChooseScheme(c, 2, 200, 1e6, 1e6).scheme, SchemeKind::kSequential);
  EXPECT_EQ(ChooseScheme(c, 2, -1, 1e6, 1e6).scheme, SchemeKind::kSequential);
  c.model = ModelKind::kSoftmax;
  EXPECT_EQ(ChooseScheme(c, 8, 60, -1).scheme, SchemeKind::kSync);
  EXPECT_EQ(ChooseScheme(c, 1, 60, -1).scheme, SchemeKind::kSequential);
  c.batch = 8 * kSyncShare;  // a step's fork-joins pay off from kSyncShare samples a worker
  EXPECT_EQ(ChooseScheme(c, 8, 60, -1).scheme, SchemeKind::kSync);
  EXPECT_EQ(ChooseScheme(c, 9, 60, -1).scheme, SchemeKind::kSequential);
  c.batch = 4;
  EXPECT_EQ(ChooseScheme(c, 2, 60, -1).scheme, SchemeKind::kSequential);
}

TEST(SchemeChoice, EveryChoiceIsAcceptedByTheSettingsCheck) {
  for (ModelKind m : {ModelKind::kLogistic, ModelKind::kMlp}) {
    for (bool deterministic : {false, true}) {
      for (int batch : {0, 32}) {
        for (double trip : {-1.0, 100.0, 900.0}) {
          for (int threads : {2, 64}) {
            TrainConfig c = Auto(m);
            c.deterministic = deterministic;
            c.batch = batch;
            c.threads = threads;
            c.scheme = ChooseScheme(c, threads, trip, -1).scheme;
            EXPECT_NO_THROW(ValidateConfig(c)) << NameOf<SchemeKind>(kSchemeKinds, c.scheme);
          }
        }
      }
    }
  }
}

TEST(SchemeChoice, RoundTripNeedsTwoThreads) {
  EXPECT_LT(MeasureRoundTripNs(*MakeTbbExecutor(1)), 0);
  EXPECT_LT(MeasureRoundTripNs(*MakeThreadExecutor(1)), 0);
}

TEST(SchemeChoice, TheTrainerResolvesAutoBeforeAllocating) {
  const Dataset data = testing::MakeProblem(200, 20, 4, 2, 0.0, 3);
  TrainConfig c = Auto(ModelKind::kLogistic);
  c.threads = 2;
  c.deterministic = true;
  auto executor = MakeTbbExecutor(2);
  Trainer trainer(c, data, nullptr, *executor);
  EXPECT_EQ(trainer.settings().scheme, SchemeKind::kSequential);
  EXPECT_EQ(trainer.settings().workers, 1);
  EXPECT_FALSE(trainer.settings().scheme_reason.empty());
  EXPECT_NE(trainer.RunIdentity().find("scheme=sequential"), std::string::npos)
      << "a checkpoint records the scheme that ran";
}

TEST(SchemeChoice, TheTrainerGivesSyncAMinibatchForEachWorker) {
  const Dataset data = testing::MakeProblem(200, 20, 4, 2, 0.0, 3);
  TrainConfig c = Auto(ModelKind::kLogistic);
  c.threads = 8;
  c.batch = 4;  // sync would refuse it; near cores or far, one worker takes it
  auto executor = MakeTbbExecutor(8);
  Trainer trainer(c, data, nullptr, *executor);
  EXPECT_EQ(trainer.settings().scheme, SchemeKind::kSequential);
  EXPECT_EQ(trainer.settings().workers, 1);
  EXPECT_NE(trainer.settings().scheme_reason.find("the 8 threads"), std::string::npos)
      << trainer.settings().scheme_reason;
}

}  // namespace
}  // namespace parsgd
