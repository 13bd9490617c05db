// Evaluation of a model on a dataset: mean loss and accuracy. Parallel and deterministic: rows are
// summed in fixed blocks, combined in block order, so the same model gives the same numbers at any
// thread count.
#pragma once

#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear_model.hpp"
#include "parsgd/model/mlp_engine.hpp"
#include "parsgd/model/mlp_model.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/train/executor.hpp"

namespace parsgd {

struct Evaluation {
  double mean_loss = 0;
  double accuracy = 0;  // fraction of rows whose predicted class is the target
  uint64_t rows = 0;
};

// Reads the model without synchronisation: call it while no worker writes. Cost: one pass over the
// data, spread over the executor's threads.
Evaluation Evaluate(const LinearModel& model, const Dataset& data, const Targets& targets,
                    Executor& executor);

// The same for an MLP (deterministic: blocks of 256 rows, each through one engine of one thread,
// summed in block order). Creates one engine per executor thread.
Evaluation EvaluateMlp(const MlpModel& model, const Dataset& data, const Targets& targets,
                       Executor& executor, MlpBackend backend = MlpBackend::kOneDnn);

// The class each row of `data` is predicted to be: 0/1 for binary models (negative/positive), the
// class id otherwise.
std::vector<int> PredictClasses(const LinearModel& model, const Dataset& data, Executor& executor);
std::vector<int> PredictClasses(const MlpModel& model, const Dataset& data, Executor& executor,
                                MlpBackend backend = MlpBackend::kOneDnn);

// The class a model predicts for scores z: argmax for softmax, the sign for binary models (0 and
// ties go to the positive class).
int PredictedClass(const LinearModel& model, const float* z);

}  // namespace parsgd
