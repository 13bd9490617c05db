// The model-specific half of training. A learner (the linear models', on the cpu or the offload
// backend; the MLP's) owns its parameters and optimiser state, runs an epoch under the configured
// scheme and evaluates; the settings come resolved (run/resolve.hpp) and the Trainer does the rest
// (orders, schedule, reports). Its factories: model/linear/linear_learner.hpp,
// model/mlp/mlp_learner.hpp, offload/offload_learner.hpp.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/evaluate.hpp"
#include "parsgd/model/linear/linear_model.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/training_state.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {

// A part of an epoch (RunContext::part): `index` of `count`, in order from 0; and under
// `--ranks-scheme sync` the ranks that sum each step's gradient (RunContext::ranks).
struct EpochPart {
  uint64_t index = 0;
  uint64_t count = 1;
  Communicator* ranks = nullptr;
};

class Learner {
 public:
  virtual ~Learner() = default;
  // Runs the epoch, or one part of it (count > 1: across ranks, which combine their models
  // between two parts).
  virtual EpochTotals RunEpoch(uint64_t epoch, const SampleOrder& order, const StepSize& step,
                               Executor& executor, EpochPart part) = 0;
  virtual Evaluation Evaluate(const Dataset& data, const Targets& targets, Executor& executor) = 0;
  // (l2 / 2) * ||w||^2 (+ l1 * ||w||_1 for the linear models) of the current parameters, biases
  // excluded.
  virtual double Regularizer() const = 0;
  // The linear models' weights that are not 0, biases excluded; none for the MLP.
  virtual std::optional<uint64_t> NonzeroWeights() const { return std::nullopt; }
  // A dual solver's dual objective (EpochReport::dual_objective); none for the others.
  virtual std::optional<double> DualObjective() { return std::nullopt; }
  // The parameters, optimiser state and runner state between two epochs
  // (parsgd/run/training_state.hpp).
  virtual void Save(TrainingState& state) const = 0;
  virtual void Load(const TrainingState& state) = 0;
  // Replaces the parameters by a trained model's, of this learner's shape (Trainer::StartFrom
  // checks it first); the optimiser state is left as it is. The MLP takes the model's input scaling
  // too.
  virtual void StartFrom(const LinearModel& model) = 0;
  virtual void StartFrom(const MlpModel& model) = 0;
  // The arrays the ranks of a run combine (their mean): the parameters, and with `state` the
  // optimiser state. Throws parsgd::Error for a learner that does not train across ranks.
  virtual std::vector<std::span<float>> RankArrays(bool /*state*/) {
    throw Error("this model does not train across ranks");
  }
  // After the ranks replaced the contents of RankArrays(state) by their combination.
  virtual void RanksCombined(bool /*state*/) {}
  // Arrays every rank replaces by the ranks' mean at each epoch's end, whatever the ranks' scheme
  // (--asgd: the averaged model, each rank's the mean of its own iterates; the ranks' mean of
  // those is the mean of their mean model's iterates, both being means).
  virtual std::vector<std::span<float>> RankMeans() { return {}; }
  virtual const LinearModel* linear() const { return nullptr; }
  virtual const MlpModel* mlp() const { return nullptr; }
};

// An optimiser's state arrays as entries "<prefix>state0" and "<prefix>state1" (those it has).
inline void SaveOptimizerState(const OptimizerState& o, TrainingState& s,
                               const std::string& prefix = "") {
  if (!o.state0.empty()) s.Put(prefix + "state0", o.state0.span());
  if (!o.state1.empty()) s.Put(prefix + "state1", o.state1.span());
}
inline void LoadOptimizerState(const TrainingState& s, OptimizerState& o,
                               const std::string& prefix = "") {
  if (!o.state0.empty()) s.Get(prefix + "state0", o.state0.span());
  if (!o.state1.empty()) s.Get(prefix + "state1", o.state1.span());
}

// A learner's RankArrays: its parameters, and with `state` its optimiser's state arrays.
inline std::vector<std::span<float>> ParamsAndState(std::span<float> params, OptimizerState& o,
                                                    bool state) {
  std::vector<std::span<float>> out = {params};
  if (state && !o.state0.empty()) out.push_back(o.state0.span());
  if (state && !o.state1.empty()) out.push_back(o.state1.span());
  return out;
}

}  // namespace parsgd
