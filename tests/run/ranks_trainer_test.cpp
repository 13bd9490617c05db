// Training across ranks (threads standing in for them, MakeThreadGroup): each rank trains its share
// of the rows and the ranks' models are averaged every --ranks-period; what the maths says must
// match the in-process average scheme does, bit for bit; every rank ends each epoch in the same
// state, so rank 0's snapshot resumes every rank exactly; an error on one rank ends all of them.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/run/trainer.hpp"
#include "ranks_support.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::RunRanks;
using testing::SameBits;
using testing::ShareOf;

using RankRun = testing::RankRun<LinearModel>;

// `epochs` epochs of `config` on every rank's share (testing::TrainRanks), the models kept.
std::vector<RankRun> TrainRanks(int ranks, const TrainConfig& config, const Dataset& whole,
                                int epochs, const TrainingState* resume = nullptr,
                                std::vector<TrainingState>* snapshots = nullptr) {
  return testing::TrainRanks(
      ranks, config, whole, epochs, [](const Trainer& t) { return t.model(); }, resume, snapshots);
}

TrainConfig RanksConfig() {
  TrainConfig c;
  c.model = ModelKind::kLogistic;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.epochs = 3;
  c.seed = 5;
  return c;
}

// 2 ranks of one worker, the models averaged after every sample, are the average scheme of 2
// workers averaging after every sample: the same shards (the sequential order's are the ranks'),
// the same rates and L2 (from every share's statistics), the same mean of two floats. The
// constant schedule: the in-process workers recompute their step every 64 samples, the ranks at
// every part.
// The average scheme of 2 workers averaging after every sample (`in_process`), and 2 ranks of one
// worker doing the same (`ranked`), on the constant schedule, with --asgd `asgd`.
struct EverySample {
  TrainConfig in_process, ranked;
};
EverySample AveragingEverySample(double asgd) {
  TrainConfig base = RanksConfig();
  base.schedule = ScheduleKind::kConstant;
  base.order = OrderKind::kSequential;
  base.asgd = asgd;
  EverySample out{base, base};
  out.in_process.scheme = SchemeKind::kAverage;
  out.in_process.threads = 2;
  out.in_process.batch = 1;
  out.in_process.period = 1;
  out.in_process.average_rule = AverageRule::kMean;  // the ranks' auto; one process takes touched
  out.ranked.ranks_period = 1;
  return out;
}

TEST(Ranks, AveragingEverySampleIsTheAverageSchemeOfAsManyWorkers) {
  const Dataset whole = testing::MakeProblem(1000, 200, 8, 2, 0.05, 3);
  const EverySample c = AveragingEverySample(kAsgdOff);
  auto executor = MakeTbbExecutor(2);
  Trainer one(c.in_process, whole, nullptr, *executor);
  std::vector<EpochReport> expected;
  while (one.epochs_done() < c.in_process.epochs) expected.push_back(one.RunEpoch());

  const std::vector<RankRun> runs = TrainRanks(2, c.ranked, whole, c.ranked.epochs);
  for (const RankRun& run : runs) {
    ASSERT_EQ(run.reports.size(), expected.size());
    EXPECT_TRUE(SameBits(run.kept.back(), one.model()));
    for (std::size_t e = 0; e < expected.size(); ++e) {
      EXPECT_EQ(run.reports[e].updates, expected[e].updates);
      EXPECT_NEAR(run.reports[e].objective, expected[e].objective, 1e-12);
      EXPECT_NEAR(run.reports[e].progressive_loss, expected[e].progressive_loss, 1e-12);
      EXPECT_EQ(run.reports[e].train_accuracy, expected[e].train_accuracy);
    }
  }
}

// The same with --asgd: the ranks' means, each over its own iterates and averaged at every
// epoch's end, are the average scheme's replicas' means: to rounding, as a rank's clock counts its
// own samples and a replica's its progress times the workers.
TEST(Ranks, AveragedSgdEverySampleIsTheAverageSchemesOfAsManyWorkers) {
  const Dataset whole = testing::MakeProblem(1000, 200, 8, 2, 0.05, 3);
  const EverySample c = AveragingEverySample(1);
  auto executor = MakeTbbExecutor(2);
  Trainer one(c.in_process, whole, nullptr, *executor);
  while (one.epochs_done() < c.in_process.epochs) one.RunEpoch();
  const std::vector<RankRun> runs = TrainRanks(2, c.ranked, whole, c.ranked.epochs);
  const std::span<const float> expected = one.model().weights();
  double gap = 0, moved = 0;
  for (const RankRun& run : runs) {
    const std::span<const float> got = run.kept.back().weights();
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      gap = std::max(gap, static_cast<double>(std::abs(got[i] - expected[i])));
      moved = std::max(moved, static_cast<double>(std::abs(expected[i])));
    }
  }
  EXPECT_LT(gap, 1e-3 * moved);
}

// Every rank ends each epoch with the same model, the reports are those of the whole data, the
// same run gives the same bits, and rank 0's snapshot after epoch 1 continues every rank exactly
// (the optimiser state too: the ranks average it at each epoch's end).
// Under both ranks schemes: gossip mixes neighbours within an epoch and averages at its end.
TEST(Ranks, EndEveryEpochAlikeRepeatAndResumeFromRankZerosSnapshot) {
  const Dataset whole = testing::MakeProblem(1500, 300, 10, 2, 0.05, 8);
  const Targets targets = MakeTargets(ModelKind::kLogistic, whole);
  for (auto [scheme, optimizer] : {std::pair{RanksScheme::kAverage, OptimizerKind::kSgd},
                                   std::pair{RanksScheme::kAverage, OptimizerKind::kMomentum},
                                   std::pair{RanksScheme::kGossip, OptimizerKind::kSgd},
                                   std::pair{RanksScheme::kGossip, OptimizerKind::kAdam}}) {
    SCOPED_TRACE(NameOf<RanksScheme>(kRanksSchemes, scheme));
    SCOPED_TRACE(testing::Name(optimizer));
    TrainConfig c = RanksConfig();
    c.optimizer.kind = optimizer;
    c.ranks_scheme = scheme;
    c.ranks_period = 37;
    const std::vector<RankRun> straight = TrainRanks(3, c, whole, c.epochs);
    const std::vector<RankRun> again = TrainRanks(3, c, whole, c.epochs);
    std::vector<TrainingState> after_one;
    TrainRanks(3, c, whole, 1, nullptr, &after_one);
    const std::vector<RankRun> resumed = TrainRanks(3, c, whole, c.epochs, &after_one[0]);
    auto executor = MakeTbbExecutor(1);
    for (int r = 0; r < 3; ++r) {
      ASSERT_EQ(straight[r].kept.size(), 3u);
      ASSERT_EQ(resumed[r].kept.size(), 2u);
      EXPECT_TRUE(SameBits(again[r].kept.back(), straight[r].kept.back()));
      EXPECT_TRUE(SameBits(resumed[r].kept.back(), straight[r].kept.back()));
      for (int e = 0; e < 3; ++e) {
        const LinearModel& model = straight[r].kept[e];
        EXPECT_TRUE(SameBits(model, straight[0].kept[e]));
        const EpochReport& report = straight[r].reports[e];
        EXPECT_EQ(report.updates, whole.rows());
        const Evaluation all = Evaluate(model, whole, targets, *executor);
        EXPECT_NEAR(report.objective - all.mean_loss,
                    0.5 * (1.0 / whole.rows()) * model.SquaredNorm(), 1e-12);
        EXPECT_EQ(report.train_accuracy, all.accuracy);
      }
    }
  }
}

// Gossip mixes only neighbours between two epoch ends: on 4 ranks (where a rank's neighbours are
// not all the others) its run differs from the average's but trains as well.
TEST(Ranks, GossipMixesNeighboursAndTrainsAsTheAverageDoes) {
  const Dataset whole = testing::MakeProblem(2000, 300, 10, 2, 0.05, 9);
  TrainConfig c = RanksConfig();
  c.ranks_period = 20;
  const std::vector<RankRun> average = TrainRanks(4, c, whole, c.epochs);
  c.ranks_scheme = RanksScheme::kGossip;
  const std::vector<RankRun> gossip = TrainRanks(4, c, whole, c.epochs);
  ASSERT_EQ(gossip[0].reports.size(), 3u);
  EXPECT_FALSE(SameBits(gossip[0].kept.back(), average[0].kept.back()));
  EXPECT_NEAR(gossip[0].reports.back().objective, average[0].reports.back().objective, 5e-3);
  EXPECT_LT(gossip[0].reports.back().objective, gossip[0].reports.front().objective);
}

// Errors on one rank end every rank with the same message: an empty share, a refused setting
// (more in ranks_schemes_test.cpp), a divergence.
// The squared loss's minibatch step is sized by the top eigenvalue of the rows' second moment, taken
// over every rank's rows: rank 0 holds only rows (1, 0), rank 1 only rows (0, 1). Over all of them
// the mean of [x; 1][x; 1]^T is [[1, 0, 1], [0, 1, 1], [1, 1, 2]] / 2, eigenvalue 3/2; one rank's
// rows alone would give 2.
TEST(Ranks, SquaredLossMinibatchesSizeTheirStepOverEveryRanksRows) {
  std::vector<testing::Entries> rows;
  std::vector<float> labels;
  for (int i = 0; i < 100; ++i) {
    rows.push_back({{static_cast<uint32_t>(i < 50 ? 0 : 1), 1.f}});
    labels.push_back(i < 50 ? -1.f : 1.f);
  }
  const Dataset whole = testing::MakeDataset(rows, labels, 2);
  TrainConfig c = RanksConfig();
  c.model = ModelKind::kSquared;
  c.normalize = Normalization::kNone;
  c.batch = 10;
  std::vector<double> eigenvalues(2), objectives(2);
  const std::vector<std::string> errors = RunRanks(2, [&](Communicator& comm) {
    const Dataset share = ShareOf(whole, comm);
    auto executor = MakeTbbExecutor(1);
    Trainer trainer(testing::OnlyApplied(c, 2), share, nullptr, *executor, &comm);
    eigenvalues[comm.rank()] = trainer.settings().top_eigenvalue;
    EpochReport last;
    for (int e = 0; e < 20; ++e) last = trainer.RunEpoch();
    objectives[comm.rank()] = last.objective;
  });
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  for (int r = 0; r < 2; ++r) {
    EXPECT_NEAR(eigenvalues[r], 1.5, 1e-6) << r;
    EXPECT_LT(objectives[r], 0.05) << r;  // from 0.5 at w = 0: the averaged ranks fit the targets
  }
}

TEST(Ranks, AnErrorOnOneRankEndsEveryRankWithItsMessage) {
  const Dataset whole = testing::MakeProblem(60, 20, 4, 2, 0.05, 2);
  auto errors_of = [&](int ranks, const Dataset& data, const TrainConfig& c) {
    return RunRanks(ranks, [&](Communicator& comm) {
      const Dataset share = ShareOf(data, comm);
      auto executor = MakeTbbExecutor(1);
      Trainer trainer(c, share, nullptr, *executor, &comm);
      while (trainer.epochs_done() < c.epochs) trainer.RunEpoch();
    });
  };
  auto expect_all = [](const std::vector<std::string>& errors, const std::string& part) {
    for (const std::string& e : errors) {
      EXPECT_TRUE(testing::Contains(e, part)) << e;
      EXPECT_EQ(e, errors[0]);
    }
  };
  const Dataset three = RowRange(whole, 0, 3);
  expect_all(errors_of(4, three, RanksConfig()), "rank 0's share of the rows is empty");
  TrainConfig sync = RanksConfig();
  sync.ranks_scheme = RanksScheme::kSync;
  expect_all(errors_of(2, whole, sync), "inside each rank with ranks-scheme sync");
  TrainConfig diverging = RanksConfig();
  diverging.model = ModelKind::kSquared;
  diverging.learning_rate = 1e9;
  diverging.normalize = Normalization::kNone;
  diverging.schedule = ScheduleKind::kConstant;
  expect_all(errors_of(3, whole, diverging), "diverged");
}

}  // namespace
}  // namespace parsgd
