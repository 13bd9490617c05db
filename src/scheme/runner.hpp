// Internal: the one shape of an epoch runner, for every model. A runner runs one epoch of one
// scheme on the trainer's parameters; what differs between the models is only the model's part of
// the context, `Params`: LinearParams for the linear models (model/linear/linear_runner.hpp),
// MlpParams for the MLP (model/mlp/mlp_runner.hpp). Each scheme is written as a template over a
// model's "local trainer" (scheme/replica_runner.hpp: average, gossip; scheme/sync_runner.hpp:
// sync) or per model where the models' inner loops differ (model/linear/async_local.cpp: per-sample
// sparse steps; model/mlp/mlp_runner.cpp: minibatch steps).
#pragma once

#include <cstdint>
#include <optional>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/training_state.hpp"

namespace parsgd {

// What a runner reads for one epoch. The parameters (in params) are the trainer's: the model and
// its optimiser state, which the runner leaves holding the epoch's result.
template <class Params>
struct RunContext {
  const Dataset* data;
  const float* targets;  // per row: the label (binary models), the class id (the others)
  Params params;
  const SampleOrder* order;  // one shard per worker
  StepSize step;
  OptimizerConfig optimizer;  // resolved
  uint64_t epoch;             // 0-based
  int workers;
  int batch;  // samples per update: global for sync, per worker otherwise
  Executor* executor;
  // The part of the epoch to run: each worker's shard cut into `parts` consecutive pieces, the
  // runner running piece `part` (parts > 1: the asynchronous schemes only, across ranks, which
  // combine the ranks' models between two parts). The parts of an epoch come in order, from 0.
  uint64_t part = 0;
  uint64_t parts = 1;
  // `--ranks-scheme sync`: the ranks whose step gradients the sync scheme sums
  // (scheme/sync_runner.hpp); null for every other run.
  Communicator* ranks = nullptr;
  // Per row: its weight (the sample's times its class's), scaling its loss and gradient; null:
  // every row 1.
  const float* weights = nullptr;
};

// Row r's weight in a context.
template <class Params>
inline float RowWeight(const RunContext<Params>& c, uint32_t r) {
  return c.weights != nullptr ? c.weights[r] : 1.f;
}

template <class Params>
class Runner {
 public:
  using Context = RunContext<Params>;
  using Parameters = Params;
  virtual ~Runner() = default;
  // Runs one epoch; returns early (with the samples actually processed) when the executor's stop
  // flag is raised.
  virtual EpochTotals Run(const Context& context) = 0;
  // Across ranks, after a combination between two parts (or epochs): the trainer's parameters, and
  // with `state` its optimiser state, now hold the ranks' combination. A runner that trains copies
  // of them (the replica schemes) takes it up; the others train on them in place.
  virtual void TakeParams(const Params&, bool /*state*/) {}
  // State a runner keeps from one epoch to the next (the replica schemes' replicas); none by
  // default.
  virtual void Save(TrainingState&) const {}
  virtual void Load(const TrainingState&) {}
  // A dual solver's dual objective for the parameters after an epoch, on the objective's scale
  // (EpochReport::dual_objective); none for the primal solvers.
  virtual std::optional<double> DualObjective(const Dataset&, const float* /*targets*/,
                                              const Params&) const {
    return std::nullopt;
  }
};

// Where part k of `parts` starts among n items (RunContext::part; k = parts gives n): n k / parts,
// rounded down, without overflow.
inline uint64_t PartStart(uint64_t n, uint64_t k, uint64_t parts) {
  __extension__ typedef unsigned __int128 Wide;
  return static_cast<uint64_t>(static_cast<Wide>(n) * k / parts);
}

// Per-sample training recomputes the step size (and Adam's step count) every kStepBlock samples of
// a worker, at positions that are multiples of it, and checks the stop flag as often.
constexpr uint64_t kStepBlock = 64;

// The step size after `samples_done` samples of epoch `epoch` over `rows` rows.
inline float StepAt(const StepSize& step, uint64_t epoch, double samples_done, uint64_t rows) {
  return step.At(epoch, samples_done / static_cast<double>(rows));
}
template <class Params>
float StepAt(const RunContext<Params>& c, double samples_done) {
  return StepAt(c.step, c.epoch, samples_done, c.data->rows());
}

// The sum of the step sizes of the steps before `samples_done` samples of epoch c.epoch, the run
// taking `steps_per_epoch` steps an epoch (RuleContext::penalty: a runner adds the steps it takes
// after that point).
template <class Params>
float PenaltyClock(const RunContext<Params>& c, double samples_done, double steps_per_epoch) {
  return static_cast<float>(
      c.step.Sum(c.epoch, samples_done / static_cast<double>(c.data->rows())) * steps_per_epoch);
}

}  // namespace parsgd
