// The executors (train/executor.hpp): every worker of RunWorkers runs at once.
#include "parsgd/train/executor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

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

}  // namespace
}  // namespace parsgd
