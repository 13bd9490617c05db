// Every scheme across ranks (threads standing in for them, MakeThreadGroup): --ranks-scheme sync
// (the ranks' gradients summed every step), the MLP across ranks, the replica schemes inside a
// rank, the outer optimiser on the ranks' average. Where the maths says a run across ranks is one
// of a process, it is that run bit for bit; everywhere every rank ends each epoch with the same
// state, and rank 0's snapshot continues every rank exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/shard.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/util/rng.hpp"
#include "ranks_support.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::RunRanks;
using testing::ShareOf;

std::vector<float> ParamsOf(const Trainer& t) {
  const std::span<const float> p =
      t.config().model == ModelKind::kMlp ? t.mlp_model().params() : t.model().weights();
  return {p.begin(), p.end()};
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

using RankRun = testing::RankRun<std::vector<float>>;

// `epochs` epochs of `config` in one process on the whole data.
RankRun TrainAlone(const TrainConfig& config, const Dataset& whole, int epochs) {
  auto executor = MakeTbbExecutor(config.threads);
  Trainer trainer(testing::OnlyApplied(config), whole, nullptr, *executor);
  RankRun run;
  while (trainer.epochs_done() < epochs) {
    run.reports.push_back(trainer.RunEpoch());
    run.kept.push_back(ParamsOf(trainer));
  }
  return run;
}

// The same on `ranks` ranks, each on its share (testing::TrainRanks), the parameters kept.
std::vector<RankRun> TrainRanks(int ranks, const TrainConfig& config, const Dataset& whole,
                                int epochs, const TrainingState* resume = nullptr,
                                std::vector<TrainingState>* snapshots = nullptr) {
  return testing::TrainRanks(ranks, config, whole, epochs, ParamsOf, resume, snapshots);
}

// Every rank holds the same parameters after every epoch, each report counts every rank's rows.
void ExpectRanksAlike(const std::vector<RankRun>& runs, uint64_t rows) {
  for (const RankRun& run : runs) {
    ASSERT_EQ(run.kept.size(), runs[0].kept.size());
    for (std::size_t e = 0; e < run.kept.size(); ++e) {
      EXPECT_TRUE(SameBits(run.kept[e], runs[0].kept[e])) << "epoch " << e + 1;
      EXPECT_EQ(run.reports[e].updates, rows);
    }
  }
}

// Repeats the run, and resumes it from rank 0's snapshot after one epoch: the same bits.
void ExpectRepeatAndResume(int ranks, const TrainConfig& c, const Dataset& whole,
                           const std::vector<RankRun>& straight) {
  const std::vector<RankRun> again = TrainRanks(ranks, c, whole, c.epochs);
  std::vector<TrainingState> after_one;
  TrainRanks(ranks, c, whole, 1, nullptr, &after_one);
  const std::vector<RankRun> resumed = TrainRanks(ranks, c, whole, c.epochs, &after_one[0]);
  for (int r = 0; r < ranks; ++r) {
    EXPECT_TRUE(SameBits(again[r].kept.back(), straight[r].kept.back()));
    ASSERT_FALSE(resumed[r].kept.empty());
    EXPECT_TRUE(SameBits(resumed[r].kept.back(), straight[r].kept.back()));
  }
}

TrainConfig Linear() {
  TrainConfig c;
  c.model = ModelKind::kLogistic;
  c.threads = 1;
  c.epochs = 3;
  c.seed = 5;
  return c;
}

TrainConfig Mlp() {
  TrainConfig c;
  c.model = ModelKind::kMlp;
  c.hidden = {16, 8};
  c.threads = 1;
  c.epochs = 3;
  c.seed = 3;
  return c;
}

// --ranks-scheme sync of 2 ranks of one worker is the sync scheme of 2 workers: the same global
// minibatches (a sample of each rank's share per step, as each worker's of its shard), the
// gradient sums of the ranks added in double and rounded once (as two floats' sum), the same step
// sizes from the samples of every rank. Linear models (sparse sums and counts) and the MLP.
TEST(RanksSync, IsTheSyncSchemeOfAsManyWorkers) {
  const Dataset sparse = testing::MakeProblem(1000, 200, 8, 2, 0.05, 3);
  const Dataset dense = testing::Blobs(600, 4);
  for (const auto& [base, whole] : {std::pair{Linear(), &sparse}, std::pair{Mlp(), &dense}}) {
    for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
      SCOPED_TRACE(testing::Name(base.model));
      SCOPED_TRACE(testing::Name(optimizer));
      TrainConfig c = base;
      c.order = OrderKind::kSequential;
      c.optimizer.kind = optimizer;
      c.batch = 2;
      TrainConfig in_process = c;
      in_process.scheme = SchemeKind::kSync;
      in_process.threads = 2;
      const RankRun expected = TrainAlone(in_process, *whole, c.epochs);
      TrainConfig ranked = c;
      ranked.ranks_scheme = RanksScheme::kSync;
      const std::vector<RankRun> runs = TrainRanks(2, ranked, *whole, c.epochs);
      ExpectRanksAlike(runs, whole->rows());
      for (std::size_t e = 0; e < expected.kept.size(); ++e) {
        EXPECT_TRUE(SameBits(runs[0].kept[e], expected.kept[e])) << "epoch " << e + 1;
        EXPECT_NEAR(runs[0].reports[e].objective, expected.reports[e].objective, 1e-12);
        EXPECT_NEAR(runs[0].reports[e].progressive_loss, expected.reports[e].progressive_loss,
                    1e-12);
      }
    }
  }
}

// Uneven shares, several workers a rank, a minibatch that does not divide evenly: every rank takes
// the same steps and ends every epoch alike, repeats, resumes, and the objective falls.
TEST(RanksSync, SeveralWorkersUnevenSharesRepeatAndResume) {
  const Dataset sparse = testing::MakeProblem(1001, 200, 8, 2, 0.05, 6);
  const Dataset dense = testing::Blobs(601, 7);
  for (const auto& [base, whole] : {std::pair{Linear(), &sparse}, std::pair{Mlp(), &dense}}) {
    SCOPED_TRACE(testing::Name(base.model));
    TrainConfig c = base;
    c.threads = 2;
    c.batch = 13;
    c.optimizer.kind = OptimizerKind::kMomentum;
    c.ranks_scheme = RanksScheme::kSync;
    const std::vector<RankRun> runs = TrainRanks(3, c, *whole, c.epochs);
    ExpectRanksAlike(runs, whole->rows());
    EXPECT_LT(runs[0].reports.back().objective, runs[0].reports.front().objective);
    ExpectRepeatAndResume(3, c, *whole, runs);
  }
}

// Averaged SGD across ranks: each rank averages its own iterates and the ranks average their
// means at every epoch's end. Under --ranks-scheme sync (every rank on the same iterates) that is
// the sync scheme's averaged model of as many workers (to rounding: a rank's clock counts its own
// samples, half the process's, so the shares are rounded apart); under the ranks' average, with
// uneven shares and several workers a rank, every rank reports the same mean, which is not the
// iterate, and repeats and resumes exactly.
TEST(RanksAsgd, TheRanksAverageTheirMeans) {
  const Dataset sparse = testing::MakeProblem(1000, 200, 8, 2, 0.05, 3);
  TrainConfig c = Linear();
  c.order = OrderKind::kSequential;
  c.batch = 2;
  c.asgd = kAsgdAuto;
  TrainConfig in_process = c;
  in_process.scheme = SchemeKind::kSync;
  in_process.threads = 2;
  const RankRun expected = TrainAlone(in_process, sparse, c.epochs);
  TrainConfig ranked = c;
  ranked.ranks_scheme = RanksScheme::kSync;
  const std::vector<RankRun> runs = TrainRanks(2, ranked, sparse, c.epochs);
  ExpectRanksAlike(runs, sparse.rows());
  for (std::size_t e = 0; e < expected.kept.size(); ++e) {
    ASSERT_EQ(runs[0].kept[e].size(), expected.kept[e].size());
    for (std::size_t i = 0; i < expected.kept[e].size(); ++i) {
      EXPECT_NEAR(runs[0].kept[e][i], expected.kept[e][i],
                  1e-6 + 1e-5 * std::abs(expected.kept[e][i]))
          << "epoch " << e + 1 << ", weight " << i;
    }
  }

  const Dataset uneven = testing::MakeProblem(1001, 200, 8, 2, 0.05, 6);
  TrainConfig averaged = Linear();
  averaged.threads = 2;
  averaged.scheme = SchemeKind::kHogwild;
  averaged.asgd = 1;
  averaged.ranks_period = 50;
  averaged.deterministic = false;
  const std::vector<RankRun> mean_runs = TrainRanks(3, averaged, uneven, averaged.epochs);
  ExpectRanksAlike(mean_runs, uneven.rows());
  TrainConfig sequential = averaged;
  sequential.threads = 1;
  sequential.scheme = SchemeKind::kSequential;
  const std::vector<RankRun> exact = TrainRanks(3, sequential, uneven, sequential.epochs);
  ExpectRanksAlike(exact, uneven.rows());
  ExpectRepeatAndResume(3, sequential, uneven, exact);
  TrainConfig plain = sequential;
  plain.asgd = kAsgdOff;
  const std::vector<RankRun> iterates = TrainRanks(3, plain, uneven, plain.epochs);
  EXPECT_FALSE(SameBits(iterates[0].kept.back(), exact[0].kept.back()));
  // The mean of the last two epochs' iterates: below the first epoch's, near the last's.
  EXPECT_LT(exact[0].reports.back().objective, iterates[0].reports.front().objective);
  EXPECT_NEAR(exact[0].reports.back().objective, iterates[0].reports.back().objective,
              0.05 * iterates[0].reports.back().objective);
}

// The MLP across ranks under every kind of scheme inside a rank: the ranks end each epoch alike,
// the report is the whole data's (the input scaling agreed by every rank: the largest |x_j| of
// all), and rank 0's snapshot resumes every rank.
TEST(RanksMlp, EveryKindOfSchemeInsideARank) {
  const Dataset whole = testing::Blobs(900, 8);
  const Targets targets = MakeTargets(ModelKind::kMlp, whole);
  for (SchemeKind scheme : {SchemeKind::kSequential, SchemeKind::kHogwild, SchemeKind::kSync,
                            SchemeKind::kAverage, SchemeKind::kGossip}) {
    SCOPED_TRACE(testing::Name(scheme));
    TrainConfig c = Mlp();
    c.scheme = scheme;
    c.threads = scheme == SchemeKind::kSequential || scheme == SchemeKind::kHogwild ? 1 : 2;
    c.hidden = {32, 16};
    c.epochs = 8;
    c.batch = 8;
    c.ranks_period = 5;
    const std::vector<RankRun> runs = TrainRanks(2, c, whole, c.epochs);
    ExpectRanksAlike(runs, whole.rows());
    // The report is the evaluation of rank 0's model on the whole data, scaled as the whole data.
    std::vector<float> scale(12, 0.f);
    for (uint64_t e = 0; e < whole.nnz(); ++e) {
      scale[whole.indices()[e]] = std::max(scale[whole.indices()[e]], std::abs(whole.values()[e]));
    }
    auto executor = MakeTbbExecutor(1);
    Trainer alone(testing::OnlyApplied(c), whole, nullptr, *executor);
    for (std::size_t j = 0; j < scale.size(); ++j) {
      EXPECT_EQ(alone.mlp_model().input_scale()[j], 1.f / scale[j]);
    }
    MlpModel model = alone.mlp_model();
    std::copy(runs[0].kept.back().begin(), runs[0].kept.back().end(), model.params().begin());
    const Evaluation all = EvaluateMlp(model, whole, targets, *executor);
    EXPECT_NEAR(runs[0].reports.back().objective, all.mean_loss, 1e-9);
    EXPECT_EQ(runs[0].reports.back().train_accuracy, all.accuracy);
    EXPECT_GT(all.accuracy, 0.7);  // no linear model gets far from a third here
    ExpectRepeatAndResume(2, c, whole, runs);
  }
}

// Replicas inside each rank, averaged every minibatch inside the rank and across the ranks, are
// the in-process average of all the ranks' workers every minibatch (the same shards, the same
// samples in each replica; the mean of four taken as a mean of two means, so equal to rounding).
TEST(RanksReplicas, AveragingEveryMinibatchIsTheAverageOfAllWorkers) {
  const Dataset whole = testing::MakeProblem(1200, 200, 8, 2, 0.05, 12);
  TrainConfig c = Linear();
  c.scheme = SchemeKind::kAverage;
  c.order = OrderKind::kSequential;
  c.schedule = ScheduleKind::kConstant;
  c.batch = 4;
  c.period = 1;
  TrainConfig in_process = c;
  in_process.threads = 4;
  const RankRun expected = TrainAlone(in_process, whole, c.epochs);
  TrainConfig ranked = c;
  ranked.threads = 2;
  ranked.ranks_period = 1;
  const std::vector<RankRun> runs = TrainRanks(2, ranked, whole, c.epochs);
  ExpectRanksAlike(runs, whole.rows());
  for (std::size_t e = 0; e < expected.kept.size(); ++e) {
    for (std::size_t k = 0; k < expected.kept[e].size(); ++k) {
      ASSERT_NEAR(runs[0].kept[e][k], expected.kept[e][k],
                  1e-5 * (1 + std::abs(expected.kept[e][k])));
    }
    EXPECT_NEAR(runs[0].reports[e].objective, expected.reports[e].objective, 1e-6);
  }
}

// Average and gossip inside each rank under both ranks schemes, with and without the optimiser
// state averaged: alike at every epoch's end, repeatable, resumable from rank 0's snapshot.
TEST(RanksReplicas, InsideEveryRankEndAlikeRepeatAndResume) {
  const Dataset whole = testing::MakeProblem(1500, 300, 10, 2, 0.05, 14);
  for (SchemeKind scheme : {SchemeKind::kAverage, SchemeKind::kGossip}) {
    for (RanksScheme ranks : {RanksScheme::kAverage, RanksScheme::kGossip}) {
      for (bool state : {false, true}) {
        SCOPED_TRACE(testing::Name(scheme));
        SCOPED_TRACE(NameOf<RanksScheme>(kRanksSchemes, ranks));
        SCOPED_TRACE(state ? "state averaged" : "state kept");
        TrainConfig c = Linear();
        c.scheme = scheme;
        c.threads = 2;
        c.optimizer.kind = OptimizerKind::kMomentum;
        c.average_state = state;
        c.ranks_scheme = ranks;
        c.ranks_period = 7;
        const std::vector<RankRun> runs = TrainRanks(3, c, whole, c.epochs);
        ExpectRanksAlike(runs, whole.rows());
        EXPECT_LT(runs[0].reports.back().objective, runs[0].reports.front().objective);
        ExpectRepeatAndResume(3, c, whole, runs);
      }
    }
  }
}

// Under `c`'s averaging (its rule, its outer optimiser), 2 ranks of one worker combining after
// every sample against the in-process average scheme's 2 workers combining after every sample:
// every rank alike, and the same bits as the workers' at every epoch. Returns the workers' run.
RankRun ExpectTheInProcessAverageOfAsManyWorkers(const TrainConfig& c, const Dataset& whole) {
  TrainConfig in_process = c;
  in_process.scheme = SchemeKind::kAverage;
  in_process.threads = 2;
  in_process.batch = 1;
  in_process.period = 1;
  // The ranks' rule: auto is the mean across ranks, the touched rule in one process on this data.
  if (in_process.average_rule == AverageRule::kAuto) in_process.average_rule = AverageRule::kMean;
  RankRun expected = TrainAlone(in_process, whole, c.epochs);
  TrainConfig ranked = c;
  ranked.scheme = SchemeKind::kSequential;
  ranked.ranks_period = 1;
  const std::vector<RankRun> runs = TrainRanks(2, ranked, whole, c.epochs);
  ExpectRanksAlike(runs, whole.rows());
  for (std::size_t e = 0; e < expected.kept.size(); ++e) {
    EXPECT_TRUE(SameBits(runs[0].kept[e], expected.kept[e])) << "epoch " << e + 1;
  }
  return expected;
}

// The outer optimiser on the ranks' average of 2 ranks of one worker, combining after every
// sample, is the in-process average scheme's outer step on 2 workers combining after every sample.
TEST(RanksOuter, IsTheAverageSchemesOuterStepOnAsManyWorkers) {
  const Dataset whole = testing::MakeProblem(1000, 200, 8, 2, 0.05, 3);
  for (OuterKind outer : {OuterKind::kSgd, OuterKind::kMomentum, OuterKind::kNesterov}) {
    SCOPED_TRACE(NameOf<OuterKind>(kOuterKinds, outer));
    TrainConfig c = Linear();
    c.schedule = ScheduleKind::kConstant;
    c.order = OrderKind::kSequential;
    c.outer.kind = outer;
    c.outer.learning_rate = outer == OuterKind::kSgd ? 0.5 : 0.7;
    c.outer.momentum = 0.4;
    ExpectTheInProcessAverageOfAsManyWorkers(c, whole);
    TrainConfig ranked = c;
    ranked.scheme = SchemeKind::kSequential;
    ranked.ranks_period = 50;
    ExpectRepeatAndResume(2, ranked, whole, TrainRanks(2, ranked, whole, c.epochs));
  }
}

// The touched and the sum rules on the ranks' average of 2 ranks of one worker, combining after
// every sample, are the in-process rules on 2 workers (the ranks' mean of two in double rounds as
// the replicas' in float), the touched rule also under the outer rule's momentum.
TEST(RanksAverageRule, IsTheInProcessRuleOnAsManyWorkers) {
  const Dataset whole = testing::MakeProblem(1000, 2000, 6, 2, 0.05, 4);
  for (auto [rule, outer] : {std::pair{AverageRule::kTouched, OuterKind::kSgd},
                             std::pair{AverageRule::kTouched, OuterKind::kMomentum},
                             std::pair{AverageRule::kSum, OuterKind::kSgd}}) {
    SCOPED_TRACE(NameOf<AverageRule>(kAverageRules, rule));
    SCOPED_TRACE(NameOf<OuterKind>(kOuterKinds, outer));
    TrainConfig c = Linear();
    c.schedule = ScheduleKind::kConstant;
    c.order = OrderKind::kSequential;
    c.average_rule = rule;
    c.outer.kind = outer;
    c.outer.momentum = 0.4;
    const RankRun expected = ExpectTheInProcessAverageOfAsManyWorkers(c, whole);
    // Not the plain mean's model.
    TrainConfig mean = c;
    mean.average_rule = AverageRule::kMean;
    mean.scheme = SchemeKind::kAverage;
    mean.threads = 2;
    mean.batch = 1;
    mean.period = 1;
    EXPECT_FALSE(SameBits(TrainAlone(mean, whole, 1).kept[0], expected.kept[0]));
    // Replicas inside each rank too: both levels take the rule; alike, repeated, resumed.
    TrainConfig ranked = c;
    ranked.scheme = SchemeKind::kAverage;
    ranked.threads = 2;
    ranked.ranks_period = 50;
    ExpectRepeatAndResume(2, ranked, whole, TrainRanks(2, ranked, whole, c.epochs));
  }
}

// What cannot work across ranks is refused on every rank with one message.
TEST(RanksSchemes, RefusalsNameTheSettings) {
  const Dataset whole = testing::MakeProblem(60, 20, 4, 2, 0.05, 2);
  auto errors_of = [&](int ranks, const TrainConfig& c) {
    return RunRanks(ranks, [&](Communicator& comm) {
      const Dataset share = ShareOf(whole, comm);
      auto executor = MakeTbbExecutor(c.threads);
      Trainer trainer(c, share, nullptr, *executor, &comm);
    });
  };
  auto expect_all = [](const std::vector<std::string>& errors, const std::string& part) {
    for (const std::string& e : errors) {
      EXPECT_TRUE(testing::Contains(e, part)) << e;
      EXPECT_EQ(e, errors[0]);
    }
  };
  TrainConfig sync = Linear();
  sync.ranks_scheme = RanksScheme::kSync;
  sync.scheme = SchemeKind::kHogwild;
  expect_all(errors_of(2, sync), "inside each rank with ranks-scheme sync");
  sync.scheme = SchemeKind::kAuto;
  sync.ranks_period = 10;
  expect_all(errors_of(2, sync), "ranks-period with ranks-scheme sync");
  sync.ranks_period = -1;
  sync.batch = 3;
  sync.threads = 2;
  expect_all(errors_of(2, sync), "batch 3 over 2 ranks");
  TrainConfig gossip = Linear();
  gossip.ranks_scheme = RanksScheme::kGossip;
  gossip.outer.kind = OuterKind::kNesterov;
  expect_all(errors_of(2, gossip), "needs ranks-scheme average");
  gossip.outer = OuterConfig{};
  gossip.average_rule = AverageRule::kTouched;
  expect_all(errors_of(2, gossip), "average-rule touched across ranks");
  TrainConfig cd = Linear();
  cd.solver = Solver::kCd;
  cd.bias = Bias::kOff;
  expect_all(errors_of(2, cd), "solver cd across ranks");
}

}  // namespace
}  // namespace parsgd
