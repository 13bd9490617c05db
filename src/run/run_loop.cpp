#include "parsgd/run/run_loop.hpp"

#include <chrono>
#include <fmt/format.h>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {

RunLoopResult RunEpochs(Trainer& trainer, const RunLoopOptions& options,
                        const std::function<void(const EpochReport&, double)>& on_epoch) {
  const int epochs = trainer.settings().epochs;
  using Snapshots = RunLoopOptions::Snapshots;
  RunLoopResult result;
  if (options.snapshots != Snapshots::kNone) result.consistent = trainer.Snapshot();
  const auto start = std::chrono::steady_clock::now();
  int last_checkpoint = -1;
  while (trainer.epochs_done() < epochs) {
    EpochReport report;
    try {
      const bool evaluate = options.evaluations == RunLoopOptions::Evaluations::kEveryEpoch ||
                            trainer.settings().tol > 0 || trainer.early_stopping() ||
                            trainer.epochs_done() + 1 == epochs;
      report = trainer.RunEpoch(evaluate);
    } catch (const Error& e) {
      if (last_checkpoint < 0) throw;
      const std::string text = fmt::format("{}\nthe checkpoint of epoch {} is kept at {}", e.what(),
                                           last_checkpoint, options.checkpoint);
      if (dynamic_cast<const AgreedError*>(&e) != nullptr) throw AgreedError(text);
      throw Error(text);
    }
    if (report.interrupted) {
      result.interrupted = true;
      return result;
    }
    result.last = report;
    on_epoch(report, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const int done = trainer.epochs_done();
    const bool last = done == epochs || report.converged;
    const bool checkpoint_now =
        !options.checkpoint.empty() && (done % options.checkpoint_every == 0 || last);
    if (options.snapshots == Snapshots::kEveryEpoch || checkpoint_now) {
      result.consistent = trainer.Snapshot();
    }
    if (checkpoint_now) {
      // Across ranks every rank holds the same state after an epoch: rank 0 writes it.
      Communicator& ranks = trainer.communicator();
      ranks.AgreeOn([&] {
        if (ranks.rank() != 0) return;
        SaveCheckpoint({trainer.RunIdentity(), trainer.DataIdentity(), result.consistent},
                       options.checkpoint);
      });
      last_checkpoint = done;
    }
    if (report.converged) break;
  }
  // Early stopping: the run ends with the best epoch's model (after the last checkpoint, which
  // holds the last epoch's state and the best one's model).
  if (trainer.early_stopping()) {
    result.best = trainer.best_epoch();
    trainer.UseBestEpoch();
  }
  return result;
}

}  // namespace parsgd
