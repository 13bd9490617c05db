// --schedule adaptive: the step stays eta0 until the objective stalls (--patience epochs without
// lowering the best by more than --tol of the first epoch's), then falls to a quarter; the stall
// after the fifth cut ends the run, before --epochs; the held-out measure decides under early
// stopping; a checkpoint keeps the cuts, so that a resumed run goes on bit for bit as the straight
// one; a refit replays a run's cuts on all its rows.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parsgd/exec/executor.hpp"
#include "parsgd/run/trainer.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

TrainConfig Adaptive() {
  TrainConfig c;
  c.scheme = SchemeKind::kSequential;
  c.threads = 1;
  c.schedule = ScheduleKind::kAdaptive;
  c.epochs = 2000;
  c.patience = 2;
  return c;
}

// Each epoch's step until the run ends (converged or at its epochs).
std::vector<double> Steps(Trainer& t, int epochs) {
  std::vector<double> steps;
  while (t.epochs_done() < epochs) {
    const EpochReport r = t.RunEpoch();
    steps.push_back(r.learning_rate);
    if (r.converged) break;
  }
  return steps;
}

TEST(AdaptiveSchedule, StallsCutTheStepToAQuarterFiveTimesThenEndTheRun) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 7);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = Adaptive();
  Trainer t(c, data, nullptr, *executor);
  EXPECT_EQ(t.settings().tol, 1e-3);  // the stall's tolerance, automatic
  const std::vector<double> steps = Steps(t, c.epochs);
  ASSERT_LT(static_cast<int>(steps.size()), c.epochs) << "never converged";
  const double eta0 = steps.front();
  EXPECT_EQ(eta0, static_cast<float>(t.settings().eta0));
  int cuts = 0;
  for (std::size_t e = 1; e < steps.size(); ++e) {
    if (steps[e] == steps[e - 1]) continue;
    EXPECT_EQ(steps[e], static_cast<float>(steps[e - 1] / 4)) << "epoch " << e + 1;
    ++cuts;
  }
  EXPECT_EQ(cuts, 5);
  EXPECT_EQ(steps.back(), static_cast<float>(eta0 / 1024));
  // The held-out measure decides under early stopping: the run ends too, its best epoch kept.
  TrainConfig held = c;
  held.validation_fraction = 0.2;
  Trainer v(held, data, nullptr, *executor);
  const std::vector<double> held_steps = Steps(v, held.epochs);
  EXPECT_LT(static_cast<int>(held_steps.size()), held.epochs);
  EXPECT_EQ(held_steps.back(), static_cast<float>(held_steps.front() / 1024));
}

// --schedule auto, the default: adaptive where sgd plans at least 50 epochs and the run can end at
// a stall; linear otherwise.
TEST(AdaptiveSchedule, AutoIsAdaptiveWhereManyEpochsArePlannedAndTheRunCanStall) {
  const Dataset small = testing::MakeProblem(300, 20, 4, 2, 0.05, 7);
  const Dataset large = testing::MakeProblem(30000, 20, 4, 2, 0.05, 7);  // 34 automatic epochs
  auto executor = MakeTbbExecutor(1);
  auto resolved = [&](const Dataset& data, int epochs, double tol, double held_out,
                      Solver solver = Solver::kSgd) {
    TrainConfig c;
    c.threads = 1;
    c.epochs = epochs;
    c.tol = tol;
    c.validation_fraction = held_out;
    c.solver = solver;
    Trainer t(c, data, nullptr, *executor);
    return std::pair(t.config().schedule, t.settings().tol);
  };
  // Automatic epochs: 1000 on 300 rows, stopped by the objective's stall at tol 1e-3.
  EXPECT_EQ(resolved(small, 0, -1, 0), std::pair(ScheduleKind::kAdaptive, 1e-3));
  EXPECT_EQ(resolved(large, 0, -1, 0), std::pair(ScheduleKind::kLinear, 0.0));
  // Epochs given: the plan, run to its end, unless something can stop it.
  EXPECT_EQ(resolved(small, 200, -1, 0).first, ScheduleKind::kLinear);
  EXPECT_EQ(resolved(small, 200, -1, 0.1).first, ScheduleKind::kAdaptive);
  EXPECT_EQ(resolved(small, 200, 1e-2, 0), std::pair(ScheduleKind::kAdaptive, 1e-2));
  EXPECT_EQ(resolved(small, 49, -1, 0.1).first, ScheduleKind::kLinear);
  EXPECT_EQ(resolved(large, 0, -1, 0.1).first, ScheduleKind::kLinear);
  // --tol none: automatic epochs cannot stall, so the plan is run to its end.
  EXPECT_EQ(resolved(small, 0, 0, 0).first, ScheduleKind::kLinear);
  EXPECT_EQ(resolved(small, 0, -1, 0, Solver::kCd).first, ScheduleKind::kLinear);
}

// --refit: a run on all the rows replays an early-stopped run's step (its cuts) and ends at its
// best epoch, whatever its own objective does.
TEST(AdaptiveSchedule, ARefitReplaysTheCutsAndEndsAtTheBestEpoch) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 7);
  auto executor = MakeTbbExecutor(1);
  TrainConfig held = Adaptive();
  held.validation_fraction = 0.2;
  held.patience = 1;  // cuts early, so that the best epoch comes after some
  Trainer first(held, data, nullptr, *executor);
  const std::vector<double> first_steps = Steps(first, held.epochs);
  const int best = first.best_epoch()->epoch;
  std::vector<uint64_t> cuts;
  for (const uint64_t e : first.step_cuts()) {
    if (e < static_cast<uint64_t>(best)) cuts.push_back(e);
  }
  ASSERT_FALSE(cuts.empty()) << "best epoch " << best << " before any cut";
  TrainConfig all = Adaptive();
  Trainer refit(all, data, nullptr, *executor);
  refit.Replay(best, cuts);
  const std::vector<double> steps = Steps(refit, all.epochs);
  ASSERT_EQ(static_cast<int>(steps.size()), best);
  EXPECT_EQ(refit.epochs_done(), best);
  // Its own eta0 (from all the rows), cut after the same epochs: the same ratios.
  for (int e = 0; e < best; ++e) {
    EXPECT_FLOAT_EQ(static_cast<float>(steps[e] / steps[0]),
                    static_cast<float>(first_steps[e] / first_steps[0]))
        << "epoch " << e + 1;
  }
  EXPECT_THROW(refit.Replay(best, cuts), Error);  // after its first epoch
}

TEST(AdaptiveSchedule, AResumedRunGoesOnAsTheStraightOne) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 7);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = Adaptive();
  Trainer straight(c, data, nullptr, *executor);
  const std::vector<double> all = Steps(straight, c.epochs);
  // Stopped after the second cut.
  int cut = 0;
  for (int e = 1, cuts = 0; e < static_cast<int>(all.size()); ++e) {
    if (all[e] != all[e - 1] && ++cuts == 2) {
      cut = e;
      break;
    }
  }
  ASSERT_GT(cut, 0);
  Trainer first(c, data, nullptr, *executor);
  const std::vector<double> head = Steps(first, cut);
  const TrainingState state = first.Snapshot();
  Trainer resumed(c, data, nullptr, *executor);
  resumed.Restore(state);
  std::vector<double> steps = head;
  for (double s : Steps(resumed, c.epochs)) steps.push_back(s);
  EXPECT_EQ(steps, all);
  const auto a = resumed.model().weights(), b = straight.model().weights();
  EXPECT_EQ(std::vector<float>(a.begin(), a.end()), std::vector<float>(b.begin(), b.end()));
}

}  // namespace
}  // namespace parsgd
