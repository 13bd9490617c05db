// Executors run the workers of a training epoch and the blocks of an evaluation pass.
//
// TbbExecutor is the product: a oneTBB task_arena of exactly `threads` threads, scoped to the
// executor (never a process-wide setting). ThreadExecutor starts plain std::threads; it exists for
// the ThreadSanitizer tests, since TSan cannot see inside the uninstrumented TBB library.
//
// RunWorkers and ParallelFor run every body with subnormal floats flushed to zero
// (util/float_env.hpp), restored after; Execute leaves the mode alone (it runs the data readers,
// which must read a subnormal value as written).
//
// Both carry worker exceptions back to the caller: a worker that throws sets the shared stop flag
// (the others poll it and return early), the first exception is kept and rethrown by Run*.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace parsgd {

class Executor {
 public:
  virtual ~Executor() = default;

  // The number of threads work is spread over.
  virtual int threads() const = 0;

  // Runs body(w) for w in [0, workers), each on its own thread when workers <= threads() (and
  // concurrently with the others; with TBB, a worker may start late if the arena is busy). Returns
  // when all have returned; rethrows the first exception. Cost: one thread hand-off per worker.
  virtual void RunWorkers(int workers, const std::function<void(int)>& body) = 0;

  // Runs body(b) for every b in [0, blocks), in any order and on any thread: for work whose result
  // does not depend on which thread runs which block. Rethrows the first exception.
  virtual void ParallelFor(uint64_t blocks, const std::function<void(uint64_t)>& body) = 0;

  // Runs fn inside this executor's threads (for oneTBB algorithms such as the parallel readers, so
  // they use exactly threads() threads). ThreadExecutor just calls fn.
  virtual void Execute(const std::function<void()>& fn) = 0;

  // Set when a worker failed or a caller asked the run to stop; workers poll it.
  std::atomic<bool>& stop_flag() { return stop_; }

 protected:
  std::atomic<bool> stop_{false};
};

// threads >= 1; 0 means all the cores this process may use.
std::unique_ptr<Executor> MakeTbbExecutor(int threads);
std::unique_ptr<Executor> MakeThreadExecutor(int threads);

// The number of cores this process may use (its CPU affinity mask).
int AvailableCores();

}  // namespace parsgd
