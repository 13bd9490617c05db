// The executors (train/executor.hpp): every worker of RunWorkers runs at once; the pool's threads
// keep the process's floating-point mode.
#include "parsgd/exec/executor.hpp"

#include <gtest/gtest.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "parsgd/util/float_env.hpp"

namespace parsgd {
namespace {

// Workers that each wait for all the others (as replicas meeting at a barrier would): they finish
// only if every one of them has a thread at the same time. More workers than this process has
// cores, on the oneTBB executor (whose pool is sized by the cores unless raised) and on plain
// threads. A worker gives up after 30 s, so a failure is a failed test, not a hang.
TEST(Executor, MoreWorkersThanCoresAllRunAtOnce) {
  const int workers = AvailableCores() + 3;
  for (const bool tbb : {true, false}) {
    const auto executor = tbb ? MakeTbbExecutor(workers) : MakeThreadExecutor(workers);
    EXPECT_EQ(executor->threads(), workers);
    std::atomic<int> arrived{0}, met{0};
    executor->RunWorkers(workers, [&](int) {
      arrived.fetch_add(1);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (arrived.load() < workers && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::yield();
      }
      if (arrived.load() == workers) met.fetch_add(1);
    });
    EXPECT_EQ(met.load(), workers) << (tbb ? "tbb" : "threads");
  }
}

// An executor made and first used while the calling thread flushes subnormals (as the trainer's
// epoch does) leaves no thread of oneTBB's pool flushing afterwards: later parallel work of the
// process (a reader, a writer) keeps its subnormal values.
TEST(Executor, LeavesThePoolsThreadsNotFlushing) {
  ASSERT_FALSE(FlushesDenormals());
  {
    FlushDenormalsScope flush;
    const auto executor = MakeTbbExecutor(AvailableCores());
    executor->RunWorkers(AvailableCores(), [](int) {});
    executor->ParallelFor(256, [](uint64_t) {});
  }
  EXPECT_FALSE(FlushesDenormals());
  std::atomic<int> flushing{0};
  std::mutex mutex;
  std::set<std::thread::id> ids;
  tbb::parallel_for(
      tbb::blocked_range<int>(0, 4096, 1),
      [&](const tbb::blocked_range<int>&) {
        if (FlushesDenormals()) flushing.fetch_add(1);
        std::lock_guard lock(mutex);
        ids.insert(std::this_thread::get_id());
        for (volatile int spin = 0; spin < 2000; spin = spin + 1) {
        }
      },
      tbb::simple_partitioner());
  EXPECT_EQ(flushing.load(), 0) << "of 4096 pieces on " << ids.size() << " threads";
}

}  // namespace
}  // namespace parsgd
