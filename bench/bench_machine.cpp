// Properties of the machine that bound what the kernels and parallel SGD can reach on it:
//  - the time a cache line takes to move between two cores (every Hogwild! write to a weight the
//    other core touched last pays it), as a ping-pong of one atomic between two threads; the time
//    per iteration is one round trip: two line transfers;
//  - the memory read bandwidth of one thread streaming an array (bytes/s);
//  - random cache lines of an array far larger than the caches, read one after another (each
//    address depends on the last: the latency) and independently (as many in flight as the core
//    keeps: the rate a random sample order can fetch rows at);
//  - random 4-byte reads of a 200 KiB array (the RCV1-shaped model's weights, in L2), independent:
//    the ceiling of a sparse dot product's weight reads (loads/s).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "bench_common.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/rng.hpp"

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

constexpr uint64_t kBigBytes = uint64_t{1} << 30;  // 1 GiB: far past any cache
constexpr uint64_t kLine = 64;

// One pass over 1 GiB of 64-bit words, summed (the adds vectorise: integers reassociate).
void BM_ReadBandwidth(benchmark::State& state) {
  auto data = parsgd::AlignedArray<uint64_t>::Zeroed(kBigBytes / sizeof(uint64_t));
  for (uint64_t i = 0; i < data.size(); i += 512) data[i] = i;  // touch every page
  for (auto _ : state) {
    uint64_t sum = 0;
    for (uint64_t v : data) sum += v;
    benchmark::DoNotOptimize(sum);
  }
  state.counters["bytes/s"] = benchmark::Counter(
      static_cast<double>(kBigBytes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}
BENCHMARK(BM_ReadBandwidth)->Unit(benchmark::kMillisecond)->UseRealTime();

// The lines of 1 GiB in one random cycle: line i's first word holds the next line's number.
const parsgd::AlignedArray<uint64_t>& RandomCycle() {
  static const parsgd::AlignedArray<uint64_t> cycle = [] {
    const uint64_t lines = kBigBytes / kLine, words = kLine / sizeof(uint64_t);
    std::vector<uint64_t> order(lines);
    std::iota(order.begin(), order.end(), 0);
    parsgd::Rng rng(3);
    for (uint64_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng.Uniform(i + 1)]);
    auto a = parsgd::AlignedArray<uint64_t>::Zeroed(lines * words);
    for (uint64_t i = 0; i < lines; ++i) a[order[i] * words] = order[(i + 1) % lines];
    return a;
  }();
  return cycle;
}

constexpr uint64_t kReads = 1 << 20;

// Latency: each line's address is the value read from the last (ns per iteration / 2^20).
void BM_RandomLineDependent(benchmark::State& state) {
  const auto& a = RandomCycle();
  const uint64_t words = kLine / sizeof(uint64_t);
  uint64_t line = 0;
  for (auto _ : state) {
    for (uint64_t i = 0; i < kReads; ++i) line = a[line * words];
    benchmark::DoNotOptimize(line);
  }
  state.counters["lines/s"] = benchmark::Counter(
      static_cast<double>(kReads) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomLineDependent)->Unit(benchmark::kMillisecond)->UseRealTime();

// Throughput: the same lines, the addresses known in advance (every read independent).
void BM_RandomLineIndependent(benchmark::State& state) {
  const auto& a = RandomCycle();
  const uint64_t words = kLine / sizeof(uint64_t);
  std::vector<uint64_t> at(kReads);
  uint64_t line = 0;
  for (uint64_t& x : at) x = line = a[line * words];
  for (auto _ : state) {
    uint64_t sum = 0;
    for (uint64_t x : at) sum += a[x * words + 1];
    benchmark::DoNotOptimize(sum);
  }
  state.counters["lines/s"] = benchmark::Counter(
      static_cast<double>(kReads) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomLineIndependent)->Unit(benchmark::kMillisecond)->UseRealTime();

// Random independent float reads of 50,000 weights (L2-resident), as a sparse dot's.
void BM_RandomWeightReads(benchmark::State& state) {
  constexpr uint32_t kWeights = 50000;
  std::vector<float> w(kWeights, 1.f);
  std::vector<uint32_t> at(1 << 16);
  parsgd::Rng rng(4);
  for (uint32_t& x : at) x = static_cast<uint32_t>(rng.Uniform(kWeights));
  for (auto _ : state) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::size_t i = 0; i < at.size(); i += 4) {
      s0 += w[at[i]];
      s1 += w[at[i + 1]];
      s2 += w[at[i + 2]];
      s3 += w[at[i + 3]];
    }
    benchmark::DoNotOptimize((s0 + s1) + (s2 + s3));
  }
  state.counters["loads/s"] = benchmark::Counter(
      static_cast<double>(at.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomWeightReads);

}  // namespace

PARSGD_BENCHMARK_MAIN();
