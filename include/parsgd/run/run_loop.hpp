// The epoch loop of a run, shared by `parsgd train`, `parsgd compare` (and, to come, the Python
// module): runs the trainer's remaining epochs, hands each epoch's report to the caller, keeps the
// state of the last complete epoch (what an interrupt or a checkpoint writes), and writes the
// checkpoints.
//
//   RunLoopOptions options;
//   options.checkpoint = "run.ckpt";
//   const RunLoopResult r = RunEpochs(trainer, options, [](const EpochReport& e, double elapsed) {
//     std::printf("epoch %d: %g after %.1f s\n", e.epoch, e.objective, elapsed);
//   });
//   if (r.interrupted) SaveCheckpoint({trainer.RunIdentity(), trainer.DataIdentity(),
//   r.consistent}, path);
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "parsgd/config/train_config.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/trainer.hpp"
#include "parsgd/run/training_state.hpp"

namespace parsgd {

struct RunLoopOptions {
  std::string checkpoint;    // where to write checkpoints; empty: none
  int checkpoint_every = 1;  // epochs between two (and after the last epoch)
  // When to take the trainer's snapshot (RunLoopResult::consistent): at the start and after every
  // epoch, so that an interrupt can write the last complete epoch; at the start and at checkpoints
  // only (the offload backend, where a snapshot copies the weights back from the device); or never
  // (a run nobody will resume: `compare`).
  enum class Snapshots { kEveryEpoch, kAtCheckpoints, kNone };
  Snapshots snapshots = Snapshots::kEveryEpoch;
  // Which epochs are evaluated (Trainer::RunEpoch): every one, or the last only (and every one
  // while a stopping rule needs the objective: ResolvedSettings::tol > 0), which saves a pass over
  // the data an epoch where nobody reads the objective.
  enum class Evaluations { kEveryEpoch, kLastEpoch };
  Evaluations evaluations = Evaluations::kEveryEpoch;
};

struct RunLoopResult {
  EpochReport last;          // the last complete epoch's report (epoch 0: none ran)
  bool interrupted = false;  // the executor's stop flag ended an epoch early
  TrainingState consistent;  // the state after the last complete epoch (empty with kNone)
  // Early stopping (Trainer::early_stopping): the best epoch's report; the trainer then holds its
  // model (Trainer::UseBestEpoch).
  std::optional<EpochReport> best;
};

// Runs epochs until the trainer's last one, the stopping rule (EpochReport::converged: --tol, or
// early stopping's patience) or an interrupt, calling on_epoch(report, seconds since the loop
// began) after each complete epoch; the last epoch run writes a checkpoint (with
// options.checkpoint). A training error after a checkpoint
// was written is rethrown as parsgd::Error with the checkpoint's epoch and path added. Across ranks
// (Trainer::communicator()) every rank runs it in step and rank 0 writes the checkpoints.
RunLoopResult RunEpochs(Trainer& trainer, const RunLoopOptions& options,
                        const std::function<void(const EpochReport&, double)>& on_epoch);

}  // namespace parsgd
