// The trainer: runs epochs of parallel SGD on a linear model or an MLP under one scheme and one
// sample order, and evaluates after each epoch.
//
//   auto executor = MakeTbbExecutor(config.threads);
//   Trainer trainer(config, train, &test, *executor);
//   while (trainer.epochs_done() < trainer.settings().epochs) {
//     const EpochReport r = trainer.RunEpoch();
//     std::printf("epoch %d: objective %g\n", r.epoch, r.objective);
//   }
//   SaveModel(trainer.model(), "model.bin", "");  // io/model_file.hpp; "": no settings text
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/model/model.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/training_state.hpp"

namespace parsgd {

// The run identity's format (Trainer::RunIdentity): 1 had no version line; 2 opens with
// "identity=2" and writes the settings as the settings table records them, the same lines as 1
// for every run 1 could describe, so that a checkpoint of either is compared key by key.
inline constexpr int kIdentityVersion = 2;

class Trainer {
 public:
  // Checks the config and the labels (throws parsgd::Error before any training), derives the
  // automatic settings, counts feature frequencies (one pass over the data). `test` may be null.
  // Throws parsgd::Error naming the training data, before allocating the model, if the model with
  // its optimiser state, or the per-feature statistics, would need more than UsableMemoryBytes()
  // (util/memory_limit.hpp).
  // The datasets and the executor must outlive the trainer.
  // Across ranks (`comm`, which must outlive it too; null: this process alone): `train` and `test`
  // are this rank's shares (LoadShard, data/shard.hpp), every rank makes a trainer with the same
  // config, and every rank calls RunEpoch in step: each rank trains its share under the scheme,
  // the ranks' models combined every --ranks-period (--ranks-scheme); the reports, the settings
  // derived from the data and DataIdentity are those of every rank's data together, and an error on
  // one rank is thrown on every rank (AgreedError). Snapshot and Restore stay per rank: after an
  // epoch every rank holds the same state.
  // The settings come checked (CheckedConfig, config/train_config.hpp), for as many ranks as `comm`
  // has; with the settings the user gave, one that the scheme auto resolves to would ignore is
  // refused (SettingError). The second form checks `config` itself.
  // Early stopping: `validation` (with config.held_out_file) gives held-out rows of a file of
  // their own; config.validation_fraction > 0 holds out that share of `train` instead (HoldOut,
  // data/holdout.hpp: the trainer keeps both parts; seeded by config.seed, and by the rank).
  // Every epoch is then measured on them (EpochReport::validation_loss, validation_accuracy),
  // the best epoch's model is kept (by config.validation_metric), and the run stops
  // (EpochReport::converged) after config.patience epochs in a row without a better one;
  // UseBestEpoch() puts that model back.
  Trainer(const CheckedConfig& config, const Dataset& train, const Dataset* test,
          Executor& executor, Communicator* comm = nullptr, const Dataset* validation = nullptr);
  Trainer(const TrainConfig& config, const Dataset& train, const Dataset* test, Executor& executor,
          Communicator* comm = nullptr, const Dataset* validation = nullptr);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  const ResolvedSettings& settings() const;
  // The settings the run uses: the given ones with every automatic choice made (scheme, optimizer,
  // epochs, learning rate, decay, l2, batch, period resolved; threads as given).
  const TrainConfig& config() const;
  // Each class's weight under --class-weight as the run resolved it (`balanced` from the training
  // rows' counts; indexed by the model's classes in order); empty where none was given.
  const std::vector<double>& class_weights() const;

  // Runs the next epoch with all workers, then (with `evaluate`) evaluates on the training and test
  // sets: a pass over both. Throws parsgd::Error if the run diverged (a loss or objective that is
  // not finite), and rethrows a worker's exception. Without `evaluate` the report has the
  // progressive loss only (EpochReport::evaluated false) and the stopping rule is not applied. If
  // the executor's stop flag is raised, workers return early, nothing is evaluated, and the report
  // says `interrupted` with the updates actually made: the model then holds part of an epoch, and
  // only a Restore() of an earlier snapshot makes the trainer whole.
  EpochReport RunEpoch(bool evaluate = true);

  int epochs_done() const;
  // Whether rows are held out for early stopping (every epoch is then evaluated).
  bool early_stopping() const;
  // Early stopping: the best epoch's report so far (none before the first evaluated epoch or
  // without held-out rows), and its model put back in place of the current one (a no-op where the
  // current epoch is the best). The run then holds that model; RunEpoch would continue from it
  // with the optimiser state of the last epoch.
  std::optional<EpochReport> best_epoch() const;
  void UseBestEpoch();
  // The ranks of the run (a SoloCommunicator when none was given).
  Communicator& communicator() const;

  // Refit (the command line's --refit): this run replays another's step schedule and ends at that
  // run's epoch `last` (of this run's epochs): no stopping rule applies; under the adaptive
  // schedule the step falls to a quarter after the epochs in `cuts` (the other run's step_cuts()),
  // evaluated or not. Call before the first epoch.
  void Replay(int last, std::vector<uint64_t> cuts);
  // The adaptive schedule's cuts so far: the epochs after which the step fell to a quarter (of
  // this process's epochs: a resumed run's list starts at the resume).
  const std::vector<uint64_t>& step_cuts() const;

  // Fine-tuning: starts from a trained model instead of the zero (linear) or random (MLP) start.
  // Its parameters, and the MLP's input scaling (part of the model), replace the initial ones; the
  // optimiser state stays zero and the schedule starts at eta0. Call before the first epoch.
  // Throws parsgd::Error with one line per difference (start model X, this run Y) when the model
  // does not fit this run: linear or mlp, binary or softmax, features, classes, hidden sizes.
  // Cost: one copy of the parameters.
  void StartFrom(const Model& model);

  // Checkpoints. Snapshot() is the whole state between two epochs (call it between RunEpoch calls,
  // after a complete epoch); Restore() puts a snapshot back into a trainer made with the same
  // configuration on the same data, which then continues exactly as the original would have (bit
  // for bit for the deterministic schemes). Restore throws parsgd::Error naming what does not fit.
  TrainingState Snapshot() const;
  void Restore(const TrainingState& state);
  // What a snapshot may only be restored into: the resolved settings that shape the run, one
  // "key=value" line each, and the training data's shape and checksum.
  std::string RunIdentity() const;
  // The scheme's own settings as the setup line says them (" (period 10) (state averaged)",
  // " (3 stages, 12 micro-batches a minibatch)"), from the scheme family that owns them; empty
  // where the scheme has none.
  std::string SchemeDetails() const;
  std::string DataIdentity() const;
  // The model being trained: model() for the linear kinds, mlp_model() for mlp (each throws
  // parsgd::Error if called for the other family).
  const LinearModel& model() const;
  const MlpModel& mlp_model() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace parsgd
