// SIGINT and SIGTERM during training: the first raises the executor's stop flag (workers return
// within kStepBlock samples, or one minibatch) so that the command can write a checkpoint and exit
// with 128 + the signal number; a second SIGINT exits at once (status 130) without writing. A
// SIGINT within 100 ms of the first is the same interrupt delivered twice (GNU `timeout -s INT`
// signals the command and then its process group), not a second one.
#pragma once

#include <atomic>
#include <csignal>

namespace parsgd::cli {

// Outside an InterruptGuard (reading the data, writing predictions, compare's runs): SIGINT and
// SIGTERM remove the temporary files of the outputs being written (AtomicFileWriter), say so, and
// end the process as the signal would. Installed once, by main.
void EndCleanlyOnSignals();

class InterruptGuard {
 public:
  // Installs the handlers for the guard's lifetime; `stop` must outlive it.
  explicit InterruptGuard(std::atomic<bool>& stop);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The first signal received (SIGINT or SIGTERM), or 0.
  int signal() const;
  // The flag the first signal raises from now on (compare: each run's executor's, one after
  // another; it must outlive the watch); raised at once where the signal already came.
  void Watch(std::atomic<bool>& stop);
  // Back to the flag given at construction.
  void WatchOwn() { Watch(own_); }

 private:
  std::atomic<bool>& own_;
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace parsgd::cli
