// --schedule adaptive: the step stays eta0 until the objective stalls (--patience epochs without
// lowering the best by more than --tol of it), then halves; the fifth halving's stall ends the
// run, before --epochs; the held-out measure decides under early stopping; a checkpoint keeps the
// halvings, so that a resumed run goes on bit for bit as the straight one.
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

TEST(AdaptiveSchedule, StallsHalveTheStepFiveTimesThenEndTheRun) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 7);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = Adaptive();
  Trainer t(c, data, nullptr, *executor);
  EXPECT_EQ(t.settings().tol, 1e-4);  // the stall's tolerance, automatic
  const std::vector<double> steps = Steps(t, c.epochs);
  ASSERT_LT(static_cast<int>(steps.size()), c.epochs) << "never converged";
  const double eta0 = steps.front();
  EXPECT_EQ(eta0, static_cast<float>(t.settings().eta0));
  int halvings = 0;
  for (std::size_t e = 1; e < steps.size(); ++e) {
    if (steps[e] == steps[e - 1]) continue;
    EXPECT_EQ(steps[e], static_cast<float>(steps[e - 1] / 2)) << "epoch " << e + 1;
    ++halvings;
  }
  EXPECT_EQ(halvings, 5);
  EXPECT_EQ(steps.back(), static_cast<float>(eta0 / 32));
  // The held-out measure decides under early stopping: the run ends too, its best epoch kept.
  TrainConfig held = c;
  held.validation_fraction = 0.2;
  Trainer v(held, data, nullptr, *executor);
  const std::vector<double> held_steps = Steps(v, held.epochs);
  EXPECT_LT(static_cast<int>(held_steps.size()), held.epochs);
  EXPECT_EQ(held_steps.back(), static_cast<float>(held_steps.front() / 32));
}

TEST(AdaptiveSchedule, AResumedRunGoesOnAsTheStraightOne) {
  const Dataset data = testing::MakeProblem(300, 20, 4, 2, 0.05, 7);
  auto executor = MakeTbbExecutor(1);
  const TrainConfig c = Adaptive();
  Trainer straight(c, data, nullptr, *executor);
  const std::vector<double> all = Steps(straight, c.epochs);
  // Cut after the second halving.
  int cut = 0;
  for (int e = 1, halvings = 0; e < static_cast<int>(all.size()); ++e) {
    if (all[e] != all[e - 1] && ++halvings == 2) {
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
