// Internal: what an epoch measures once its steps are done (run/trainer.cpp calls it after every
// evaluated epoch): the objective on the training rows, the test and held-out rows' loss,
// accuracy and fit, the held-out AUC where early stopping ranks by it, the dual objective. Across
// ranks each rank evaluates its share and the ranks' evaluations together are the whole data's.
#pragma once

#include "model/learner.hpp"
#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "row_weights.hpp"

namespace parsgd {

// The rows an epoch is measured on: the training rows, and the test and held-out rows where the
// run has them (null otherwise).
struct EvaluationSets {
  const Dataset& train;
  const Targets& train_targets;
  const Dataset* test = nullptr;
  const Targets* test_targets = nullptr;
  const Dataset* validation = nullptr;
  const Targets* validation_targets = nullptr;
  Weighted weighted;
  ValidationMetric metric = ValidationMetric::kLoss;
};

// Fills `report`'s objective, nonzero weights, the sets' losses, accuracies (weighted where the
// rows have weights) and fits, the held-out AUC under ValidationMetric::kAuc and the dual
// objective. Collective across `ranks`.
void EvaluateEpoch(EpochReport& report, Learner& learner, const EvaluationSets& sets,
                   Executor& executor, Communicator& ranks);

}  // namespace parsgd
