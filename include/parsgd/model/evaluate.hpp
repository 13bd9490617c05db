// Evaluation of a model on a dataset: mean loss and accuracy. Parallel and deterministic: rows are
// summed in fixed blocks, combined in block order, so the same model gives the same numbers at any
// thread count.
#pragma once

#include <cmath>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/linear/linear_model.hpp"
#include "parsgd/model/mlp/mlp_engine.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/model/targets.hpp"

namespace parsgd {

class Communicator;

// Over rows of weights w_i (Targets::weights; 1 each where it is empty).
struct Evaluation {
  double mean_loss = 0;  // sum of w_i loss_i over the rows, divided by the rows
  double accuracy = 0;   // fraction of rows whose predicted class is the target
  uint64_t rows = 0;
  // The weights' share of the rows predicted right (with --class-weight balanced and no row
  // weights: the balanced accuracy, the mean of the classes' recalls), and the weights' sum.
  double weighted_accuracy = 0;
  double weight_sum = 0;
  // A regression model (LinearModel::regression; its score is the prediction): the weighted sums
  // of the residuals' squares and magnitudes, and the targets' weighted mean and spread
  // sum w_i (y_i - mean)^2. `accuracy` then counts agreeing signs only.
  bool regression = false;
  double squared_error = 0;
  double absolute_error = 0;
  double target_mean = 0;
  double target_spread = 0;

  double rmse() const { return weight_sum > 0 ? std::sqrt(squared_error / weight_sum) : 0; }
  double mae() const { return weight_sum > 0 ? absolute_error / weight_sum : 0; }
  // The coefficient of determination 1 - sum w r^2 / sum w (y - mean)^2 (scikit-learn's r2_score:
  // 0 where the targets do not spread and the fit is not exact, 1 where it is).
  double r2() const {
    if (target_spread > 0) return 1 - squared_error / target_spread;
    return squared_error == 0 ? 1 : 0;
  }
};

// Reads the model without synchronisation: call it while no worker writes. Cost: one pass over the
// data, spread over the executor's threads.
Evaluation Evaluate(const LinearModel& model, const Dataset& data, const Targets& targets,
                    Executor& executor);

// The evaluation of the rows of every rank together, from each rank's of its share: the losses and
// the correct rows summed, divided by the rows of all. Collective.
Evaluation CombineEvaluations(const Evaluation& mine, Communicator& comm);

// The same for an MLP (deterministic: blocks of 256 rows, each through one engine of one thread,
// summed in block order). Creates one engine per executor thread.
Evaluation EvaluateMlp(const MlpModel& model, const Dataset& data, const Targets& targets,
                       Executor& executor, MlpBackend backend = MlpBackend::kOneDnn);

// The class each row of `data` is predicted to be: 0/1 for binary models (negative/positive), the
// class id otherwise.
std::vector<int> PredictClasses(const LinearModel& model, const Dataset& data, Executor& executor);
std::vector<int> PredictClasses(const MlpModel& model, const Dataset& data, Executor& executor,
                                MlpBackend backend = MlpBackend::kOneDnn);

// The scores of rows [begin, end) of `data`, row-major: outputs() floats per row for a linear model
// (one for the binary models: the decision value w.x + b; K for softmax), classes() for the MLP
// (its output layer before the softmax). Cost: that of a pass over those rows, on the executor's
// threads (the MLP in blocks of 256 rows, one engine per thread).
std::vector<float> PredictScores(const LinearModel& model, const Dataset& data, uint64_t begin,
                                 uint64_t end, Executor& executor);
std::vector<float> PredictScores(const MlpModel& model, const Dataset& data, uint64_t begin,
                                 uint64_t end, Executor& executor,
                                 MlpBackend backend = MlpBackend::kOneDnn);

// The class a model predicts for scores z: argmax for softmax and one-vs-rest, the sign for binary
// models (0 and ties go to the positive class).
int PredictedClass(const LinearModel& model, const float* z);

// Whether a model of `kind` gives class probabilities: logistic, softmax and mlp do.
inline bool HasProbabilities(ModelKind kind) {
  return kind == ModelKind::kLogistic || kind == ModelKind::kSoftmax || kind == ModelKind::kMlp;
}
// The class probabilities of scores z into p[0..classes): for logistic (classes 2) the negative
// and positive class, 1 - s and s with s = 1 / (1 + exp(-z[0])); for softmax and the MLP
// exp(z_k) / sum exp(z). Only for the kinds HasProbabilities accepts.
void Probabilities(ModelKind kind, const float* z, int classes, float* p);

}  // namespace parsgd
