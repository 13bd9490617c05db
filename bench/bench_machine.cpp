// Properties of the machine that bound what parallel SGD can gain on it: the time a cache line
// takes to move between two cores (every Hogwild! write to a weight the other core touched last
// pays it), measured as a ping-pong of one atomic between two threads. The time per iteration is
// one round trip: two line transfers.
#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>

#include "bench_common.hpp"

namespace {

void BM_CoreToCoreRoundTrip(benchmark::State& state) {
  alignas(64) std::atomic<int> flag{0};
  std::atomic<bool> done{false};
  std::thread partner([&] {
    while (!done.load(std::memory_order_relaxed)) {
      if (flag.load(std::memory_order_acquire) == 1) flag.store(0, std::memory_order_release);
    }
  });
  for (auto _ : state) {
    flag.store(1, std::memory_order_release);
    while (flag.load(std::memory_order_acquire) != 0) {
    }
  }
  done.store(true);
  partner.join();
}
BENCHMARK(BM_CoreToCoreRoundTrip)->UseRealTime();

}  // namespace

PARSGD_BENCHMARK_MAIN();
