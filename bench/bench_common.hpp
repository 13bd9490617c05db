// Shared set-up for the benchmarks: the RCV1-shaped generated problem, made once per process;
// the thread families (1 thread, the baseline, then doubling up to the machine's cores); the
// machine in each JSON output's context (the CPU model, and the memory read bandwidth that the
// memory-bound benchmarks report a fraction of); and the main that adds it.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/data/generator.hpp"
#include "parsgd/exec/executor.hpp"

namespace parsgd::bench {

// Rows of the generated problem: PARSGD_BENCH_ROWS (default 500,000, as in bench/README.md).
inline uint64_t BenchRows() {
  const char* rows = std::getenv("PARSGD_BENCH_ROWS");
  return rows ? std::strtoull(rows, nullptr, 10) : 500000;
}

// The 500,000 x 50,000, ~70 nonzeros per row generated set (seed 1), generated once.
inline const Dataset& Rcv1Shaped() {
  static const Dataset data = [] {
    GeneratorParams p;
    p.rows = BenchRows();
    auto executor = MakeTbbExecutor(0);
    Dataset d;
    executor->Execute([&] { d = GenerateSparse(p); });
    return d;
  }();
  return data;
}

// The bytes a pass over the rows reads from the data set: 8 a nonzero (index and value) and 8 a
// row (its offset), the labels aside.
inline double DataBytes(const Dataset& data) {
  return 8.0 * static_cast<double>(data.nnz()) + 8.0 * static_cast<double>(data.rows());
}

// Thread counts 1, 2, 4, ... and the machine's core count: a family with its 1-thread baseline.
inline void ThreadFamily(benchmark::internal::Benchmark* b) {
  const int cores = AvailableCores();
  for (int t = 1; t < cores; t *= 2) b->Arg(t);
  b->Arg(cores);
}

// The CPU's model name, family and model (/proc/cpuinfo), as `lscpu` names the machines of
// bench/README.md.
inline std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string name, family, model;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && name.empty()) name = value;
    if (key == "cpu family" && family.empty()) family = value;
    if (key == "model" && model.empty()) model = value;
  }
  return name + ", family " + family + " model " + model;
}

// Bytes per second of one thread summing a 256 MiB array (best of 3 passes): the memory read
// bandwidth that the memory-bound benchmarks report a share of ("of_read_bandwidth").
inline double ReadBandwidth() {
  static const double bandwidth = [] {
    std::vector<uint64_t> data((256u << 20) / sizeof(uint64_t), 1);
    double best = 0;
    for (int pass = 0; pass < 3; ++pass) {
      const auto start = std::chrono::steady_clock::now();
      uint64_t sum = 0;
      for (uint64_t v : data) sum += v;
      benchmark::DoNotOptimize(sum);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = std::max(best, static_cast<double>(data.size() * sizeof(uint64_t)) / seconds);
    }
    return best;
  }();
  return bandwidth;
}

inline void AddMachineContext() {
  benchmark::AddCustomContext("cpu_model", CpuModel());
  benchmark::AddCustomContext("available_cores", std::to_string(AvailableCores()));
}

}  // namespace parsgd::bench

// BENCHMARK_MAIN with the machine in the context (bench::AddMachineContext).
#define PARSGD_BENCHMARK_MAIN()                                       \
  int main(int argc, char** argv) {                                   \
    benchmark::Initialize(&argc, argv);                               \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1; \
    parsgd::bench::AddMachineContext();                               \
    benchmark::RunSpecifiedBenchmarks();                              \
    benchmark::Shutdown();                                            \
    return 0;                                                         \
  }
