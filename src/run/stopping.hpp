// Internal: the rules that end a run before its last epoch (run/trainer.cpp calls them after each
// epoch): the stopping rule on the objective or the duality gap (--tol), early stopping on
// held-out rows (--validation, --validation-fraction) with the best epoch's model, and the
// adaptive schedule's cuts of the step (--schedule adaptive), which a checkpoint keeps.
#pragma once

#include <optional>
#include <vector>

#include "parsgd/config/train_config.hpp"
#include "parsgd/model/model.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/training_state.hpp"

namespace parsgd {

// The stopping rule without a dual (ResolvedSettings::tol): the objective has not fallen below the
// best so far by more than tol of it for `patience` epochs in a row: --patience (5) for SGD
// (scikit-learn's rule and its n_iter_no_change: a stochastic objective rises now and then), 1 for
// primal cd (whose epochs lower it every time). SGD measures the fall against the first epoch's
// objective (`from_first`), not the best's: an objective with no floor above 0 (an MLP without
// L2 fitting its rows) falls by more than 1e-3 of itself every epoch for hundreds of epochs
// after the test accuracy has settled (743 epochs on digits, the same accuracy after 60), where a
// fall of a thousandth of its start is the stall it means. Counted within this process: a resumed
// run starts counting afresh (the adaptive schedule's checkpoint keeps them).
struct Progress {
  std::optional<double> best;
  std::optional<double> scale;  // from_first: the first epoch's |objective|
  int stale = 0;

  bool Stalled(double objective, double tol, int patience, bool from_first = false) {
    if (from_first && !scale) scale = std::abs(objective);
    const double reference = from_first ? *scale : best ? std::abs(*best) : 0.0;
    if (best && objective > *best - tol * reference) {
      ++stale;
    } else {
      stale = 0;
    }
    if (!best || objective < *best) best = objective;
    return stale >= patience;
  }
};

// Early stopping on held-out rows: the best epoch by the validation metric, its model and report,
// and the epochs since the last improvement. An epoch improves on the best where its loss is lower
// by more than kImprovement of it, or its accuracy higher; the best model is the best value's,
// improvement or not.
struct EarlyStop {
  static constexpr double kImprovement = 1e-4;
  std::optional<EpochReport> best;
  std::optional<Model> model;  // the best epoch's
  int stale = 0;

  // Lower is better.
  static double Value(const EpochReport& r, ValidationMetric metric) {
    switch (metric) {
      case ValidationMetric::kAccuracy:
        return -*r.validation_accuracy;
      case ValidationMetric::kAuc:
        return -*r.validation_auc;
      case ValidationMetric::kLoss:
        break;
    }
    return *r.validation_loss;
  }
  // After an evaluated epoch: whether it is the best so far, and whether the run should stop.
  bool Update(const EpochReport& r, ValidationMetric metric, int patience, bool& is_best) {
    const double v = Value(r, metric);
    is_best = !best || v < Value(*best, metric);
    const bool improved =
        !best || (metric == ValidationMetric::kLoss
                      ? v < Value(*best, metric) - kImprovement * std::abs(Value(*best, metric))
                      : v < Value(*best, metric));
    stale = improved ? 0 : stale + 1;
    return stale >= patience;
  }

  // After an evaluated epoch: Update, the best epoch's report and model (`make()`, called only
  // for a new best) kept, r.best_epoch set; whether the run should stop.
  template <class MakeModel>
  bool Record(EpochReport& r, ValidationMetric metric, int patience, MakeModel make) {
    bool is_best = false;
    const bool stop = Update(r, metric, patience, is_best);
    if (is_best) {
      r.best_epoch = r.epoch;
      best = r;
      model = make();
    }
    r.best_epoch = best->epoch;
    return stop;
  }
};

// The stopping rule after an epoch: the relative duality gap where the solver has a dual, else
// Progress.
bool Converged(const EpochReport& r, Progress& progress, double tol, Solver solver, int patience);

// The adaptive schedule's cuts so far (the epochs after which the step fell to a quarter), or a
// replay of another run's schedule (--refit): its cuts, no stopping rule, and the end at its
// epoch `replay_last` (> 0 while replaying).
struct StepPlan {
  std::vector<uint64_t> cuts;
  int replay_last = 0;
};

// A replaying run after epoch `epochs_done`: the step cut where the plan cut it; whether the run
// ends here.
bool ReplayedEpoch(uint64_t epochs_done, StepSize& step, const StepPlan& plan);

// --schedule adaptive, after an evaluated epoch (`epochs_done` of them) whose measure `stalled`
// (the objective's Progress; the held-out EarlyStop's under early stopping): the step falls to a
// quarter (the epoch recorded in plan.cuts) and the stall counts start again, or, once it has been
// cut kAdaptiveCuts times, the run ends. Returns whether it ends.
bool AdaptiveStall(bool stalled, uint64_t epochs_done, StepSize& step, Progress& progress,
                   EarlyStop& early, StepPlan& plan);

// The rules as a run keeps them: the objective's progress, early stopping's best epoch, and the
// step's plan (the adaptive schedule's cuts, or a replay).
struct StoppingRules {
  Progress progress;
  EarlyStop early;
  StepPlan plan;

  // At an epoch's end (`epochs_done` of them), before it is evaluated: under a replay, the step
  // cut where the replayed run cut it; whether the replay ends here.
  bool Replayed(uint64_t epochs_done, StepSize& step) {
    return plan.replay_last > 0 && ReplayedEpoch(epochs_done, step, plan);
  }

  // After the evaluated epoch `r` (`epochs_done` of them; `replayed_end`: Replayed's answer):
  // the stopping rule measured (--tol), the held-out rows' best epoch and its model (make(),
  // where `held_out`) kept; whether the run ends here: a replay at its end, the adaptive
  // schedule's stall after its last cut (each stall before it cuts the step), else the stopping
  // rule's or early stopping's stall.
  template <class MakeModel>
  bool Decide(EpochReport& r, bool replayed_end, const TrainConfig& config, double tol,
              uint64_t epochs_done, StepSize& step, bool held_out, MakeModel make) {
    const bool objective_stalled =
        Converged(r, progress, tol, config.solver, config.patience);
    const bool held_out_stalled =
        held_out && early.Record(r, config.validation_metric, config.patience, make);
    if (plan.replay_last > 0) return replayed_end;
    if (config.schedule == ScheduleKind::kAdaptive && config.solver == Solver::kSgd) {
      return AdaptiveStall(held_out ? held_out_stalled : objective_stalled, epochs_done, step,
                           progress, early, plan);
    }
    return objective_stalled || held_out_stalled;
  }
};

// The held-out rows' --validation-metric against the run's targets: throws SettingError for a
// class measure of a regression, and for auc on other than two classes or across ranks.
void CheckValidationMetric(ValidationMetric metric, bool regression, uint64_t classes, int ranks);

// The adaptive schedule's cuts and the stall counted so far in a checkpoint, and back (none
// there: as the schedule starts), so that a resumed run goes on as the straight one. Load throws
// parsgd::Error for more cuts than the schedule takes or one after `epochs_done`.
void SaveAdaptive(const StepSize& step, const Progress& progress, const EarlyStop& early,
                  TrainingState& state);
void LoadAdaptive(const TrainingState& state, uint64_t epochs_done, StepSize& step,
                  Progress& progress, EarlyStop& early);

// The best epoch in a checkpoint: its model's parameters and what its report says.
void SaveEarlyStop(const EarlyStop& e, TrainingState& state);

// Back from a checkpoint (none: the run starts without a best epoch); `current`: a model of the
// run's shape, copied and given the best parameters.
void LoadEarlyStop(const TrainingState& state, const LinearModel& current, EarlyStop& e);
void LoadEarlyStop(const TrainingState& state, const MlpModel& current, EarlyStop& e);

}  // namespace parsgd
