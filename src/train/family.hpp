// The model-specific half of training. A family (the linear models, the MLP) resolves its automatic
// settings, owns its parameters and optimiser state, runs an epoch under the configured scheme and
// evaluates; the Trainer does the rest (settings common to all, orders, schedule, reports).
#pragma once

#include <memory>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear_model.hpp"
#include "parsgd/model/mlp_model.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/train/epoch_report.hpp"
#include "parsgd/train/evaluate.hpp"
#include "parsgd/train/executor.hpp"
#include "parsgd/train/linear_step.hpp"
#include "parsgd/train/training_state.hpp"

namespace parsgd {

class ModelFamily {
 public:
  virtual ~ModelFamily() = default;
  virtual EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                                Executor& executor) = 0;
  virtual Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor& executor) = 0;
  // (l2 / 2) * ||w||^2 of the current parameters, biases excluded.
  virtual double Regularizer() const = 0;
  // The parameters, optimiser state and runner state between two epochs (training_state.hpp).
  virtual void Save(TrainingState& state) const = 0;
  virtual void Load(const TrainingState& state) = 0;
  // Replaces the parameters by a trained model's, of this family's shape (Trainer::StartFrom checks
  // it first); the optimiser state is left as it is. The MLP takes the model's input scaling too.
  virtual void StartFrom(const LinearModel& model) = 0;
  virtual void StartFrom(const MlpModel& model) = 0;
  virtual const LinearModel* linear() const { return nullptr; }
  virtual const MlpModel* mlp() const { return nullptr; }
};

// An optimiser's state arrays as entries "<prefix>state0" and "<prefix>state1" (those it has).
inline void SaveOptimizerState(const OptimizerState& o, TrainingState& s, const std::string& prefix = "") {
  if (!o.state0.empty()) s.Put(prefix + "state0", o.state0.span());
  if (!o.state1.empty()) s.Put(prefix + "state1", o.state1.span());
}
inline void LoadOptimizerState(const TrainingState& s, OptimizerState& o, const std::string& prefix = "") {
  if (!o.state0.empty()) s.Get(prefix + "state0", o.state0.span());
  if (!o.state1.empty()) s.Get(prefix + "state1", o.state1.span());
}

// The linear models' data-derived settings and initial parameters, the same for every backend:
// the per-feature rates (empty when no feature needs one), the L2 strength, the zero model. Fills
// settings' eta0, l2 and data statistics.
struct LinearSetup {
  LinearModel model;
  AlignedArray<FeatureRate> rates;
  double l2 = 0;
};
LinearSetup SetUpLinear(const TrainConfig& config, const Dataset& train, const Targets& targets,
                        ResolvedSettings& settings);

// `config` is resolved (optimizer, batch). `settings` arrives with the common fields (threads,
// workers, batch, epochs) and leaves with the family's (eta0, l2, data statistics).
std::unique_ptr<ModelFamily> MakeLinearFamily(const TrainConfig& config, const Dataset& train,
                                              const Targets& targets, ResolvedSettings& settings);
// The linear models on an OpenMP target device (src/offload/). Sets settings.workers and .device.
std::unique_ptr<ModelFamily> MakeOffloadLinearFamily(const TrainConfig& config, const Dataset& train,
                                                     const Targets& targets,
                                                     ResolvedSettings& settings);
std::unique_ptr<ModelFamily> MakeMlpFamily(const TrainConfig& config, const Dataset& train,
                                           const Targets& targets, ResolvedSettings& settings);

}  // namespace parsgd
