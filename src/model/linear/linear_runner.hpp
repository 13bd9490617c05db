// The linear models' epoch runners: how the workers of one epoch meet the model, by the family of
// the scheme's row (scheme/scheme_kind.hpp):
//  - asynchronous (sequential, hogwild, locked, striped, atomic): each worker walks its samples and
//    updates the shared parameters per sample (model/linear/async_local.cpp);
//  - sync, and sequential with --batch > 1: steps of one global minibatch, gradients combined in a
//    fixed order, one update per step (scheme/sync_runner.hpp, with the linear models' half in
//    model/linear/sync_local.cpp);
//  - the replica schemes: per-worker replicas, combined every period (scheme/replica_runner.hpp,
//    with the linear models' half in model/linear/replica_local.cpp).
// The coordinate-descent solvers have runners of their own (solver/). Each runner is a template
// over the loss head and the optimiser rule (and the scheme), instantiated for every combination;
// the run-time choice is made once, in MakeLinearRunner.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "parsgd/config/train_config.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/util/error.hpp"
#include "scheme/runner.hpp"

namespace parsgd {

// The linear models' runners (scheme/runner.hpp), on the weights with their per-feature rates.
using LinearContext = RunContext<LinearParams>;
using LinearRunner = Runner<LinearParams>;

// The shape every runner is built for.
struct RunnerShape {
  uint64_t features;
  int outputs;
  int workers;
  uint64_t rows = 0;  // of the training data
  // The training rows' weights (Targets::weights), for the solvers that keep a bound per row
  // (dual-cd: C times the row's weight); null: every row 1.
  const float* row_weights = nullptr;
};

// The runner of config's scheme (resolved) and solver, chosen from the scheme's row
// (scheme/scheme_kind.hpp).
std::unique_ptr<LinearRunner> MakeLinearRunner(const TrainConfig& config, const RunnerShape& shape);
// The error of a factory of asynchronous runners asked for another scheme.
Error NotAsync(SchemeKind scheme);

// The families (one .cpp each).
std::unique_ptr<LinearRunner> MakeAsyncRunner(const TrainConfig& config, const RunnerShape& shape);
std::unique_ptr<LinearRunner> MakeMinibatchRunner(const TrainConfig& config,
                                                  const RunnerShape& shape);
std::unique_ptr<LinearRunner> MakeLinearReplicaRunner(const TrainConfig& config,
                                                      const RunnerShape& shape);

// Calls fn(head) with the loss head of `loss` (LossOf a linear model's kind) for a model of
// `outputs` scores, holding the loss's width `epsilon` where it has one (the regression losses,
// --loss-epsilon): a margin loss with more than one output is one-vs-rest. The one dispatch from a
// loss to its code (scores, losses, gradients): three heads, each loss of one score a run-time
// choice inside BinaryHead<ScoreLoss>.
template <class Fn>
decltype(auto) WithHead(Loss loss, float epsilon, int outputs, Fn&& fn) {
  if (loss == Loss::kSoftmax) return fn(SoftmaxHead{});
  if (outputs > 1) return fn(OneVsRestHead{{loss, epsilon}});
  return fn(BinaryHead<ScoreLoss>{{loss, epsilon}});
}

}  // namespace parsgd
