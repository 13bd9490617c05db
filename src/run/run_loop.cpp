#include "parsgd/run/run_loop.hpp"

#include <chrono>
#include <fmt/format.h>

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
      report = trainer.RunEpoch();
    } catch (const Error& e) {
      if (last_checkpoint < 0) throw;
      throw Error(fmt::format("{}\nthe checkpoint of epoch {} is kept at {}", e.what(),
                              last_checkpoint, options.checkpoint));
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
      SaveCheckpoint({trainer.RunIdentity(), trainer.DataIdentity(), result.consistent},
                     options.checkpoint);
      last_checkpoint = done;
    }
    if (report.converged) break;
  }
  return result;
}

}  // namespace parsgd
