// Epoch runners for models with dense minibatch gradients (the MLP): every scheme on one flat
// parameter vector.
//  - sequential, hogwild, locked, atomic: each worker computes its minibatch's gradient and applies
//    it to the shared parameters. Hogwild! and atomic workers first copy the shared parameters
//    with relaxed atomic loads into a private snapshot, so the compute library (oneDNN) never reads
//    memory that another thread writes; locked holds its lock from that read to the last write.
//  - sync: one global minibatch per step split among the workers, the gradients combined in worker
//    order by the owners of each coordinate range, one update.
//  - average, gossip: per-worker replicas, combined every period (replica_scheme.hpp).
// Striped locking is refused: an MLP minibatch touches every coordinate, so it would be `locked`.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/mlp_engine.hpp"
#include "parsgd/model/mlp_input.hpp"
#include "parsgd/model/mlp_model.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/optim/step_size.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/train/epoch_report.hpp"
#include "parsgd/train/executor.hpp"
#include "parsgd/train/training_state.hpp"

namespace parsgd {

struct DenseContext {
  const Dataset* data;
  const float* targets;        // class ids
  const float* input_scale;    // per input feature
  const std::vector<MlpLayer>* layers;
  ParamArrays params;          // the trainer's parameters and optimiser state
  uint64_t size;               // parameters
  float l2;                    // on weights, not biases
  const SampleOrder* order;
  StepSize step;
  OptimizerConfig optimizer;   // resolved
  uint64_t epoch;
  int workers;
  int batch;                   // per update: global for sync, per worker otherwise
  Executor* executor;
};

class DenseRunner {
 public:
  virtual ~DenseRunner() = default;
  virtual EpochTotals Run(const DenseContext& context) = 0;
  // State a runner keeps from one epoch to the next (the average scheme's replicas); none by default.
  virtual void Save(TrainingState&) const {}
  virtual void Load(const TrainingState&) {}
};

// config: resolved (optimizer, batch); sizes: the MLP's layer sizes.
std::unique_ptr<DenseRunner> MakeDenseRunner(const TrainConfig& config, const std::vector<int>& sizes,
                                             int workers, int batch);

}  // namespace parsgd
