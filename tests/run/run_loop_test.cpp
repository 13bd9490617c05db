// The epoch loop shared by train and compare (run/run_loop.hpp): every epoch reported in order,
// checkpoints on schedule, an interrupt ending the loop with the last complete epoch's state.
#include "parsgd/run/run_loop.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "parsgd/io/checkpoint.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TrainConfig FiveEpochs() {
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.epochs = 5;
  return c;
}

TEST(RunLoop, ReportsEveryEpochAndCheckpointsOnSchedule) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 71);
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(FiveEpochs(), data, nullptr, *executor);
  testing::TempDir dir;
  RunLoopOptions options;
  options.checkpoint = dir.File("run.ckpt");
  options.checkpoint_every = 2;
  std::vector<int> epochs, checkpointed;
  double previous = 0;
  const RunLoopResult r = RunEpochs(trainer, options, [&](const EpochReport& e, double elapsed) {
    epochs.push_back(e.epoch);
    EXPECT_GE(elapsed, previous);
    previous = elapsed;
    // The checkpoint written so far: after epochs 2 and 4 (the callback runs before the loop
    // writes the epoch's own).
    if (std::filesystem::exists(options.checkpoint)) {
      checkpointed.push_back(static_cast<int>(LoadCheckpoint(options.checkpoint).state.Counter("epochs_done")));
    }
  });
  EXPECT_EQ(epochs, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(checkpointed, (std::vector<int>{2, 2, 4}));  // seen in epochs 3, 4 and 5
  EXPECT_EQ(LoadCheckpoint(options.checkpoint).state.Counter("epochs_done"), 5u);  // and the last
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.last.epoch, 5);
  EXPECT_EQ(r.consistent.Counter("epochs_done"), 5u);
}

// The stop flag raised during epoch 3 (here: after epoch 2's report, before epoch 3 runs): the
// loop returns with epoch 2's report and state; resumed from that state the run ends on the bits
// of one never stopped.
TEST(RunLoop, AnInterruptKeepsTheLastCompleteEpoch) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 72);
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(FiveEpochs(), data, nullptr, *executor);
  const RunLoopResult r = RunEpochs(trainer, {}, [&](const EpochReport& e, double) {
    if (e.epoch == 2) executor->stop_flag().store(true);
  });
  executor->stop_flag().store(false);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.last.epoch, 2);
  EXPECT_EQ(r.consistent.Counter("epochs_done"), 2u);

  Trainer resumed(FiveEpochs(), data, nullptr, *executor);
  resumed.Restore(r.consistent);
  RunEpochs(resumed, {}, [](const EpochReport&, double) {});
  Trainer straight(FiveEpochs(), data, nullptr, *executor);
  RunEpochs(straight, {}, [](const EpochReport&, double) {});
  EXPECT_TRUE(testing::SameBits(resumed.model(), straight.model()));
}

TEST(RunLoop, TakesNoSnapshotWhenAskedNotTo) {
  const Dataset data = testing::MakeProblem(200, 10, 3, 2, 0.05, 73);
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(FiveEpochs(), data, nullptr, *executor);
  RunLoopOptions options;
  options.snapshots = RunLoopOptions::Snapshots::kNone;
  int calls = 0;
  const RunLoopResult r = RunEpochs(trainer, options, [&](const EpochReport&, double) { ++calls; });
  EXPECT_EQ(calls, 5);
  EXPECT_TRUE(r.consistent.arrays().empty());
  EXPECT_FALSE(r.consistent.Has("epochs_done"));
}

// Evaluating the last epoch only: the others report no objective, the last reports the one an
// every-epoch run reports (evaluation never changes the training: the same bits); a stopping rule
// that needs the objective gets every epoch's; a divergence is still caught by the loss.
TEST(RunLoop, EvaluatesTheLastEpochOnlyWhenAsked) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 73);
  auto executor = MakeTbbExecutor(1);
  auto run = [&](const TrainConfig& c, RunLoopOptions::Evaluations evaluations) {
    Trainer trainer(c, data, nullptr, *executor);
    RunLoopOptions options;
    options.evaluations = evaluations;
    std::vector<EpochReport> reports;
    RunEpochs(trainer, options, [&](const EpochReport& e, double) { reports.push_back(e); });
    return std::pair{reports, trainer.model()};
  };
  const auto [every, every_model] = run(FiveEpochs(), RunLoopOptions::Evaluations::kEveryEpoch);
  const auto [last, last_model] = run(FiveEpochs(), RunLoopOptions::Evaluations::kLastEpoch);
  ASSERT_EQ(last.size(), 5u);
  for (int e = 0; e < 4; ++e) {
    EXPECT_FALSE(last[e].evaluated);
    EXPECT_TRUE(every[e].evaluated);
    EXPECT_EQ(last[e].progressive_loss, every[e].progressive_loss);
  }
  EXPECT_TRUE(last[4].evaluated);
  EXPECT_EQ(last[4].objective, every[4].objective);
  EXPECT_TRUE(testing::SameBits(last_model, every_model));

  TrainConfig stopping = FiveEpochs();
  stopping.tol = 1e-12;
  for (const EpochReport& e : run(stopping, RunLoopOptions::Evaluations::kLastEpoch).first) {
    EXPECT_TRUE(e.evaluated);
  }

  TrainConfig diverging = FiveEpochs();
  diverging.model = ModelKind::kSquared;
  diverging.learning_rate = 1e9;
  diverging.normalize = Normalization::kNone;
  diverging.schedule = ScheduleKind::kConstant;
  try {
    run(diverging, RunLoopOptions::Evaluations::kLastEpoch);
    FAIL() << "a diverging run ended";
  } catch (const Error& e) {
    EXPECT_TRUE(testing::Contains(e.what(), "epoch 1: the run diverged (objective not evaluated"))
        << e.what();
  }
}

}  // namespace
}  // namespace parsgd
