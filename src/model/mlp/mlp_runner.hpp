// Epoch runners for models with dense minibatch gradients (the MLP): every scheme on one flat
// parameter vector.
//  - sequential, hogwild, locked, atomic: each worker computes its minibatch's gradient and applies
//    it to the shared parameters. Hogwild! and atomic workers first copy the shared parameters
//    with relaxed atomic loads into a private snapshot, so the compute library (oneDNN) never reads
//    memory that another thread writes; locked holds its lock from that read to the last write.
//  - sync: one global minibatch per step split among the workers, the gradients combined in worker
//    order by the owners of each coordinate range, one update (scheme/sync_runner.hpp).
//  - average, gossip: per-worker replicas, combined every period (scheme/replica_runner.hpp).
// Striped locking is refused: an MLP minibatch touches every coordinate, so it would be `locked`.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "parsgd/config/train_config.hpp"
#include "parsgd/model/mlp/mlp_engine.hpp"
#include "parsgd/model/mlp/mlp_input.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "scheme/runner.hpp"

namespace parsgd {

// The MLP's part of a runner's context (scheme/runner.hpp).
struct MlpParams {
  ParamArrays arrays;        // the trainer's parameters and optimiser state
  uint64_t size;             // parameters
  float l2;                  // on weights, not biases
  const float* input_scale;  // per input feature
  const std::vector<MlpLayer>* layers;
};
using MlpContext = RunContext<MlpParams>;
using MlpRunner = Runner<MlpParams>;

// config: resolved (optimizer, batch); sizes: the MLP's layer sizes.
std::unique_ptr<MlpRunner> MakeMlpRunner(const TrainConfig& config, const std::vector<int>& sizes,
                                         int workers, int batch);

}  // namespace parsgd
