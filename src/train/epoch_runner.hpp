// Epoch runners: how the workers of one epoch meet the model, one family per kind of scheme.
//  - asynchronous (sequential, hogwild, locked, striped, atomic): each worker walks its samples and
//    updates the shared parameters per sample (async_runner.cpp);
//  - minibatch (sync, and sequential with --batch > 1): steps of one global minibatch, gradients
//    combined in a fixed order, one update per step (minibatch_runner.cpp);
//  - average, gossip: per-worker replicas, combined every period (replica_scheme.hpp, with the
//    linear models' half in linear_replicas.cpp).
// Each runner is a template over the loss head and the optimiser rule (and the scheme), instantiated
// for every combination; the run-time choice is made once, in MakeEpochRunner.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "parsgd/data/dataset.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/train/epoch_report.hpp"
#include "parsgd/train/executor.hpp"
#include "parsgd/train/linear_step.hpp"
#include "parsgd/train/training_state.hpp"

namespace parsgd {

// What a runner reads for one epoch. The parameters (params.arrays) are the trainer's: the model
// and its optimiser state, which the runner leaves holding the epoch's result.
struct EpochContext {
  const Dataset* data;
  const float* targets;
  LinearParams params;
  const SampleOrder* order;  // one shard per worker
  StepSize step;
  OptimizerConfig optimizer;
  uint64_t epoch;            // 0-based
  int workers;
  int batch;                 // samples per update: global for sync, per worker for average
  Executor* executor;
};

class EpochRunner {
 public:
  virtual ~EpochRunner() = default;
  // Runs one epoch; returns early (with the samples actually processed) when the executor's stop
  // flag is raised.
  virtual EpochTotals Run(const EpochContext& context) = 0;
  // State a runner keeps from one epoch to the next (the average scheme's replicas); none by default.
  virtual void Save(TrainingState&) const {}
  virtual void Load(const TrainingState&) {}
};

// The shape every runner is built for.
struct RunnerShape {
  uint64_t features;
  int outputs;
  int workers;
};

std::unique_ptr<EpochRunner> MakeEpochRunner(const TrainConfig& config, const RunnerShape& shape);

// The families (one .cpp each).
std::unique_ptr<EpochRunner> MakeAsyncRunner(const TrainConfig& config, const RunnerShape& shape);
std::unique_ptr<EpochRunner> MakeMinibatchRunner(const TrainConfig& config, const RunnerShape& shape);
std::unique_ptr<EpochRunner> MakeLinearReplicaRunner(const TrainConfig& config,
                                                     const RunnerShape& shape);

// Calls fn(Head{}) with the loss head of a linear `model` (the MLP has its own runners).
template <class Fn>
decltype(auto) WithHead(ModelKind model, Fn&& fn) {
  switch (model) {
    case ModelKind::kHinge:
      return fn(BinaryHead<HingeLoss>{});
    case ModelKind::kSquared:
      return fn(BinaryHead<SquaredLoss>{});
    case ModelKind::kSoftmax:
    case ModelKind::kMlp:
      return fn(SoftmaxHead{});
    case ModelKind::kLogistic:
      break;
  }
  return fn(BinaryHead<LogisticLoss>{});
}

// Per-sample training recomputes the step size (and Adam's step count) every kStepBlock samples of a
// worker, at positions that are multiples of it, and checks the stop flag as often.
constexpr uint64_t kStepBlock = 64;

// The step size after `samples_done` samples of epoch `epoch` over `rows` rows.
inline float StepAt(const StepSize& step, uint64_t epoch, double samples_done, uint64_t rows) {
  return step.At(epoch, samples_done / static_cast<double>(rows));
}
inline float StepAt(const EpochContext& c, double samples_done) {
  return StepAt(c.step, c.epoch, samples_done, c.data->rows());
}

}  // namespace parsgd
