// Shared set-up for the benchmarks: the RCV1-shaped generated problem, made once per process.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

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

}  // namespace parsgd::bench
