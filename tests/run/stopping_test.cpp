// The stopping rule without a dual (--tol with the SGD solver): a run stops once 5 epochs in a row
// end above its best objective minus tol of it, writes its checkpoint at that epoch, and without a
// tolerance runs every epoch. (The dual solver's rule, by the duality gap: dual_cd_test.cpp.)
#include <gtest/gtest.h>

#include "parsgd/config/settings.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/run/run_loop.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

const Dataset& Problem() {
  static const Dataset data = testing::MakeProblem(800, 20, 5, 2, 0.05, 5);
  return data;
}

TrainConfig Sgd(int epochs, double tol) {
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.epochs = epochs;
  c.tol = tol;
  c.schedule = ScheduleKind::kLinear;  // the rule on its own (auto is adaptive from 50 epochs)
  return c;
}

// Runs the loop and returns each epoch's objective.
std::vector<double> Objectives(Trainer& trainer, const RunLoopOptions& options = {}) {
  std::vector<double> out;
  RunEpochs(trainer, options, [&](const EpochReport& r, double) { out.push_back(r.objective); });
  return out;
}

TEST(Stopping, SgdStopsAfterFiveEpochsWithoutProgressAndChecksItsRule) {
  auto executor = MakeTbbExecutor(1);
  for (double tol : {1e-2, 1e-3, 1e-4}) {
    Trainer trainer(Sgd(100, tol), Problem(), nullptr, *executor);
    const std::vector<double> o = Objectives(trainer);
    ASSERT_LT(o.size(), 100u) << "tol " << tol;
    // The rule, replayed: the epoch it stopped at is the first with 5 stale epochs in a row, each
    // measured against the first epoch's objective.
    double best = o[0];
    int stale = 0;
    std::size_t stop = 0;
    for (std::size_t e = 1; e < o.size() && stop == 0; ++e) {
      stale = o[e] > best - tol * std::abs(o[0]) ? stale + 1 : 0;
      best = std::min(best, o[e]);
      if (stale == 5) stop = e + 1;
    }
    EXPECT_EQ(stop, o.size()) << "tol " << tol;
  }
}

TEST(Stopping, AHugeToleranceStopsAtTheSixthEpochAndNoneRunsThemAll) {
  auto executor = MakeTbbExecutor(1);
  Trainer loose(Sgd(50, 0.9), Problem(), nullptr, *executor);
  EXPECT_EQ(Objectives(loose).size(), 6u);  // the first sets the best; five more fail to beat it
  Trainer none(Sgd(12, 0), Problem(), nullptr, *executor);
  EXPECT_EQ(Objectives(none).size(), 12u);
  Trainer automatic(Sgd(12, -1), Problem(), nullptr, *executor);
  EXPECT_EQ(automatic.settings().tol, 0);  // sgd: no stopping rule by default
  EXPECT_EQ(Objectives(automatic).size(), 12u);
}

TEST(Stopping, TheEpochItStopsAtWritesTheCheckpoint) {
  testing::TempDir dir;
  auto executor = MakeTbbExecutor(1);
  Trainer trainer(Sgd(50, 0.9), Problem(), nullptr, *executor);
  RunLoopOptions options;
  options.checkpoint = dir.File("run.ckpt");
  options.checkpoint_every = 100;  // never by the count
  const RunLoopResult r = RunEpochs(trainer, options, [](const EpochReport&, double) {});
  EXPECT_TRUE(r.last.converged);
  EXPECT_EQ(LoadCheckpoint(options.checkpoint).state.Counter("epochs_done"), 6u);
}

TEST(Stopping, TheSettingTakesAFractionAutoOrNone) {
  TrainConfig c;
  EXPECT_EQ(c.tol, -1);
  ApplySetting(c, "tol", "1e-3");
  EXPECT_EQ(c.tol, 1e-3);
  ApplySetting(c, "tol", "none");
  EXPECT_EQ(c.tol, 0);
  ApplySetting(c, "tol", "auto");
  EXPECT_EQ(c.tol, -1);
  EXPECT_THROW(ApplySetting(c, "tol", "0"), SettingError);
  EXPECT_THROW(ApplySetting(c, "tol", "2"), SettingError);
  EXPECT_THROW(ApplySetting(c, "tol", "-0.1"), SettingError);
}

}  // namespace
}  // namespace parsgd
