#include "epoch_evaluation.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "parsgd/model/class_report.hpp"
#include "parsgd/model/evaluate.hpp"

namespace parsgd {
namespace {

// A regression's scores from its evaluation; none for a classifier's.
std::optional<RegressionScores> FitOf(const Evaluation& e) {
  if (!e.regression) return std::nullopt;
  return RegressionScores{e.rmse(), e.mae(), e.r2()};
}

// The ROC AUC of a two-class model's scores on `data` (the positive class: target > 0, +1 of the
// binary linear models, class 1 of the MLP, whose score is z_1 - z_0).
double ScoresAuc(const Learner& learner, const Dataset& data, const Targets& targets,
                 Executor& executor) {
  std::vector<float> scores;
  if (const LinearModel* m = learner.linear()) {
    scores = PredictScores(*m, data, 0, data.rows(), executor);
  } else {
    const std::vector<float> z = PredictScores(*learner.mlp(), data, 0, data.rows(), executor);
    scores.resize(data.rows());
    for (uint64_t i = 0; i < data.rows(); ++i) scores[i] = z[2 * i + 1] - z[2 * i];
  }
  std::vector<uint8_t> positive(data.rows());
  for (uint64_t i = 0; i < data.rows(); ++i) positive[i] = targets.values[i] > 0 ? 1 : 0;
  return RocAuc(scores, positive);
}

}  // namespace

void EvaluateEpoch(EpochReport& report, Learner& learner, const EvaluationSets& sets,
                   Executor& executor, Communicator& ranks) {
  auto evaluation = [&](const Dataset& data, const Targets& targets) {
    const Evaluation mine = learner.Evaluate(data, targets, executor);
    return ranks.size() > 1 ? CombineEvaluations(mine, ranks) : mine;
  };
  const Evaluation on_train = evaluation(sets.train, sets.train_targets);
  report.objective = on_train.mean_loss + learner.Regularizer();
  report.nonzero_weights = learner.NonzeroWeights();
  report.train_accuracy = on_train.accuracy;
  report.train_fit = FitOf(on_train);
  if (sets.weighted.train) report.train_weighted_accuracy = on_train.weighted_accuracy;
  if (sets.test != nullptr) {
    const Evaluation on_test = evaluation(*sets.test, *sets.test_targets);
    report.test_loss = on_test.mean_loss;
    report.test_accuracy = on_test.accuracy;
    report.test_fit = FitOf(on_test);
    if (sets.weighted.test) report.test_weighted_accuracy = on_test.weighted_accuracy;
  }
  if (sets.validation != nullptr) {
    const Evaluation held = evaluation(*sets.validation, *sets.validation_targets);
    report.validation_loss = held.mean_loss;
    report.validation_accuracy = held.accuracy;
    report.validation_fit = FitOf(held);
    if (sets.metric == ValidationMetric::kAuc) {
      report.validation_auc = ScoresAuc(learner, *sets.validation, *sets.validation_targets,
                                        executor);
    }
  }
  report.dual_objective = learner.DualObjective();
}

}  // namespace parsgd
