// What a training epoch reports: the workers' totals and the trainer's report after evaluation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace parsgd {

// What the workers of one epoch did: the progressive loss summed in a fixed order, and the samples
// they processed.
struct EpochTotals {
  double loss_sum = 0;
  uint64_t updates = 0;
  double comm_seconds = 0;  // in collectives with other ranks (--ranks-scheme sync's sums)
  // The model partitions (the MLP's pipeline, vertical, subnet): the bytes one worker read that
  // another wrote; the pipeline's stages' busy seconds, and the seconds they were there for
  // (stages x the wall time of the ticks).
  uint64_t exchanged_bytes = 0;
  double busy_seconds = 0;
  double stage_seconds = 0;
  // A coordinate solver set some coordinates aside (--solver cd's shrinking under --l1): the
  // epoch's progress says nothing of them, so the stopping rule waits for an epoch over every one.
  bool partial = false;
};

// A regression's fit on a set of rows (Evaluation::rmse, mae, r2): the root mean squared and mean
// absolute residual (weighted), and the coefficient of determination.
struct RegressionScores {
  double rmse = 0;
  double mae = 0;
  double r2 = 0;
};

struct EpochReport {
  int epoch = 0;             // 1-based
  uint64_t updates = 0;      // samples processed this epoch
  double train_seconds = 0;  // the workers' wall time, evaluation excluded
  double eval_seconds = 0;
  double comm_seconds = 0;       // across ranks: combining the ranks' models, or under sync their
                                 // gradients (in train_seconds)
  uint64_t exchanged_bytes = 0;  // the model partitions: read by one worker, written by another
  std::optional<double> bubble;  // the pipeline: the share of its stages' time spent idle
  double learning_rate = 0;      // at the end of the epoch (0 for --solver dual-cd)
  double progressive_loss = 0;   // mean loss of each sample just before its own update
  double objective = 0;  // mean training loss + l2 / 2 * ||w||^2 (+ l1 ||w||_1), after the epoch
  std::optional<uint64_t> nonzero_weights;  // the linear models: weights not 0, bias excluded
  double train_accuracy = 0;
  std::optional<double> test_loss;
  std::optional<double> test_accuracy;
  // Where the rows have weights (a weight column, importances, --class-weight): the weights'
  // share of the rows predicted right (Evaluation::weighted_accuracy).
  std::optional<double> train_weighted_accuracy;
  std::optional<double> test_weighted_accuracy;
  // A regression (real-valued targets): the fits, in place of the accuracies (which then count
  // agreeing signs only).
  std::optional<RegressionScores> train_fit;
  std::optional<RegressionScores> test_fit;
  std::optional<RegressionScores> validation_fit;
  // Early stopping (rows held out: --validation, --validation-fraction): their mean loss and
  // accuracy after the epoch, and the best epoch so far by --validation-metric (this one, or an
  // earlier one whose model the run keeps).
  std::optional<double> validation_loss;
  std::optional<double> validation_accuracy;
  std::optional<double> validation_auc;  // --validation-metric auc (ROC AUC of the scores)
  int best_epoch = 0;
  // The dual solver's dual objective D(a) on the objective's scale (D <= the optimum <= objective):
  // the duality gap objective - D bounds how far the weights are from the optimum.
  std::optional<double> dual_objective;
  bool evaluated = true;     // false: not evaluated (Trainer::RunEpoch(false)): the objective,
                             // the accuracies, the test and dual metrics are not set
  bool partial = false;      // EpochTotals::partial: not a candidate for the stopping rule
  bool converged = false;    // the stopping rule (--tol) holds after this epoch
  bool interrupted = false;  // the stop flag ended the epoch early: no evaluation
  double samples_per_second() const { return train_seconds > 0 ? updates / train_seconds : 0; }
  // (objective - D) / |objective|; none without a dual.
  std::optional<double> relative_gap() const {
    if (!dual_objective) return std::nullopt;
    return (objective - *dual_objective) / std::max(std::abs(objective), 1e-300);
  }
};

}  // namespace parsgd
