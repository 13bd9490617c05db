#include "parsgd/exec/executor.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#include <sched.h>

#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "parsgd/util/error.hpp"
#include "parsgd/util/float_env.hpp"

namespace parsgd {
namespace {

// Runs each piece of work with subnormals flushed (util/float_env.hpp), keeps the first exception
// thrown by any worker and raises the stop flag so the others end early.
class FirstError {
 public:
  explicit FirstError(std::atomic<bool>& stop) : stop_(stop) {}

  template <class Fn>
  void Guard(Fn&& fn) {
    try {
      FlushDenormalsScope flush;
      fn();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      stop_.store(true, std::memory_order_relaxed);
    }
  }
  void Rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool>& stop_;
  std::mutex mutex_;
  std::exception_ptr error_;
};

int Resolve(int threads) {
  if (threads < 0) throw Error("thread count must be positive, got " + std::to_string(threads));
  return threads == 0 ? AvailableCores() : threads;
}

// oneTBB's pool holds as many threads as the process may use cores (its default concurrency),
// however large an arena: asked for more, an arena would run some workers' tasks one after
// another on fewer threads while reporting `threads`. Beyond the cores the executor raises the
// process's limit for its lifetime, so that `threads` workers run at once, time-sliced by the
// system (oversubscribed, as OpenMP and std::thread would run them). The limit in force is the
// smallest of those alive (oneTBB's rule): executors alive at once (fits on several threads of a
// Python process) share the smaller, and workers past it run in turn; every scheme's workers
// meet only at fork-joins, so they still finish.
std::optional<tbb::global_control> RaisedLimit(int threads) {
  if (threads <= tbb::info::default_concurrency()) return std::nullopt;
  return std::optional<tbb::global_control>(std::in_place,
                                            tbb::global_control::max_allowed_parallelism,
                                            static_cast<std::size_t>(threads));
}

class TbbExecutor final : public Executor {
 public:
  explicit TbbExecutor(int threads)
      : threads_(Resolve(threads)), limit_(RaisedLimit(threads_)), arena_(threads_) {
    // oneTBB captures the floating-point mode of the thread that initializes an arena and sets it
    // in every thread that joins, which keeps it after leaving: initialized lazily inside a
    // flushing scope (the trainer's epoch), the arena left the pool's threads flushing subnormals
    // in the process's later work (a LIBSVM file written and read back lost its subnormal values).
    // So the arena starts from the non-flushing mode; the workers flush in FirstError::Guard.
    const bool flushing = FlushesDenormals();
    SetFlushDenormals(false);
    arena_.initialize();
    SetFlushDenormals(flushing);
  }

  int threads() const override { return threads_; }

  void RunWorkers(int workers, const std::function<void(int)>& body) override {
    FirstError errors(stop_);
    arena_.execute([&] {
      // One task per worker; the static partitioner hands them to distinct threads of the arena.
      tbb::parallel_for(
          tbb::blocked_range<int>(0, workers, 1),
          [&](const tbb::blocked_range<int>& r) {
            for (int w = r.begin(); w < r.end(); ++w) errors.Guard([&] { body(w); });
          },
          tbb::static_partitioner());
    });
    errors.Rethrow();
  }

  void ParallelFor(uint64_t blocks, const std::function<void(uint64_t)>& body) override {
    FirstError errors(stop_);
    arena_.execute([&] {
      tbb::parallel_for(uint64_t{0}, blocks, [&](uint64_t b) { errors.Guard([&] { body(b); }); });
    });
    errors.Rethrow();
  }

  void Execute(const std::function<void()>& fn) override { arena_.execute(fn); }

 private:
  int threads_;
  std::optional<tbb::global_control> limit_;
  tbb::task_arena arena_;
};

class ThreadExecutor final : public Executor {
 public:
  explicit ThreadExecutor(int threads) : threads_(Resolve(threads)) {}

  int threads() const override { return threads_; }

  void RunWorkers(int workers, const std::function<void(int)>& body) override {
    FirstError errors(stop_);
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] { errors.Guard([&] { body(w); }); });
    }
    for (auto& t : pool) t.join();
    errors.Rethrow();
  }

  void ParallelFor(uint64_t blocks, const std::function<void(uint64_t)>& body) override {
    std::atomic<uint64_t> next{0};
    RunWorkers(threads_, [&](int) {
      for (uint64_t b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) body(b);
    });
  }

  void Execute(const std::function<void()>& fn) override { fn(); }

 private:
  int threads_;
};

}  // namespace

int AvailableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::unique_ptr<Executor> MakeTbbExecutor(int threads) {
  return std::make_unique<TbbExecutor>(threads);
}

std::unique_ptr<Executor> MakeThreadExecutor(int threads) {
  return std::make_unique<ThreadExecutor>(threads);
}

}  // namespace parsgd
