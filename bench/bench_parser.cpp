// Loading speed: LIBSVM parsing, binary cache reading and generation, from 1 thread up to every
// core (each reader first checked: the rows and nonzeros it gives are those written); the
// CSV reader against the LIBSVM reader on the same table.
//
// The data: GenerateSparse with 100,000 rows x 50,000 features x 70 nonzeros per row (RCV1's
// shape), written once to a temporary folder as LIBSVM text and as a binary cache; and a table of
// 200,000 rows, a 0/1 label and 20 Gaussian values of 4 decimals, as CSV (a header, then the
// values) and as LIBSVM text (the same values, 1-based indices; none is 0). Each thread count runs
// inside its own tbb::task_arena. Counters: bytes/s of input (file size / wall time) and MB/s per
// thread; entries/s for the generator.
//
//   build/bench/bench_parser --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench_common.hpp"
#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/csv.hpp"
#include "parsgd/data/generator.hpp"
#include "parsgd/data/libsvm.hpp"
#include "parsgd/util/rng.hpp"

namespace {

namespace fs = std::filesystem;

parsgd::GeneratorParams BenchParams() {
  parsgd::GeneratorParams params;
  params.rows = 100000;
  params.features = 50000;
  params.nnz_per_row = 70;
  return params;
}

// The files, made once per process and removed at exit.
struct Files {
  Files() {
    std::string pattern = (fs::temp_directory_path() / "parsgd-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    folder = pattern;
    const parsgd::Dataset data = parsgd::GenerateSparse(BenchParams());
    nnz = data.nnz();
    libsvm = (folder / "rcv1-like.svm").string();
    cache = (folder / "rcv1-like.bin").string();
    parsgd::WriteLibsvm(data, libsvm);
    parsgd::WriteBinaryCache(data, cache);
    table_csv = (folder / "table.csv").string();
    table_svm = (folder / "table.svm").string();
    std::ofstream csv(table_csv), svm(table_svm);
    csv << "y";
    for (int j = 0; j < kColumns; ++j) csv << ",x" << j;
    csv << "\n";
    parsgd::Rng rng(3);
    std::string c, s;
    for (int i = 0; i < kTableRows; ++i) {
      const int y = static_cast<int>(rng.Uniform(2));
      c = std::to_string(y);
      s = c;
      for (int j = 0; j < kColumns; ++j) {
        double v = std::round(rng.Normal() * 1e4) / 1e4;
        if (v == 0) v = 1e-4;
        c += fmt::format(",{}", v);
        s += fmt::format(" {}:{}", j + 1, v);
      }
      csv << c << "\n";
      svm << s << "\n";
    }
  }
  static constexpr int kTableRows = 200000, kColumns = 20;
  ~Files() { fs::remove_all(folder); }

  fs::path folder;
  uint64_t nnz = 0;  // the generated set's, which every reader of its files must give
  std::string libsvm;
  std::string cache;
  std::string table_csv;
  std::string table_svm;
};

const Files& TheFiles() {
  static const Files files;
  return files;
}

// The check before the timed loop: what the reader gave is the set written (its rows and
// nonzeros); else the benchmark is skipped with the error.
bool Check(benchmark::State& state, const parsgd::Dataset& read, uint64_t rows, uint64_t nnz) {
  if (read.rows() == rows && read.nnz() == nnz) return true;
  state.SkipWithError(
      fmt::format("read {} rows, {} nonzeros; written {}, {}", read.rows(), read.nnz(), rows, nnz)
          .c_str());
  return false;
}

void SetByteCounters(benchmark::State& state, uint64_t bytes_per_iteration, int threads) {
  const double bytes = static_cast<double>(bytes_per_iteration);
  state.SetBytesProcessed(static_cast<int64_t>(bytes_per_iteration) * state.iterations());
  state.counters["MB_per_thread"] =
      benchmark::Counter(bytes * 1e-6 / threads, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_ParseLibsvm(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().libsvm;
  tbb::task_arena arena(threads);
  bool ok = false;
  arena.execute(
      [&] { ok = Check(state, parsgd::ReadLibsvm(path), BenchParams().rows, TheFiles().nnz); });
  if (!ok) return;
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadLibsvm(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ParseLibsvm)
    ->Apply(parsgd::bench::ThreadFamily)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The table as CSV and as LIBSVM text: the two readers' bytes/s on the same rows.
void BM_ParseTableCsv(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().table_csv;
  tbb::task_arena arena(threads);
  bool ok = false;
  arena.execute([&] {
    ok = Check(state, parsgd::ReadCsv(path), Files::kTableRows,
               uint64_t{Files::kTableRows} * Files::kColumns);
  });
  if (!ok) return;
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadCsv(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ParseTableCsv)
    ->Apply(parsgd::bench::ThreadFamily)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_ParseTableLibsvm(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().table_svm;
  tbb::task_arena arena(threads);
  bool ok = false;
  arena.execute([&] {
    ok = Check(state, parsgd::ReadLibsvm(path), Files::kTableRows,
               uint64_t{Files::kTableRows} * Files::kColumns);
  });
  if (!ok) return;
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadLibsvm(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ParseTableLibsvm)
    ->Apply(parsgd::bench::ThreadFamily)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_ReadBinaryCache(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().cache;
  tbb::task_arena arena(threads);
  bool ok = false;
  arena.execute([&] {
    ok = Check(state, parsgd::ReadBinaryCache(path), BenchParams().rows, TheFiles().nnz);
  });
  if (!ok) return;
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadBinaryCache(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ReadBinaryCache)
    ->Apply(parsgd::bench::ThreadFamily)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_GenerateSparse(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  tbb::task_arena arena(threads);
  uint64_t nnz = 0;
  for (auto _ : state) {
    arena.execute([&] { nnz = parsgd::GenerateSparse(BenchParams()).nnz(); });
  }
  state.counters["entries/s"] =
      benchmark::Counter(static_cast<double>(nnz), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GenerateSparse)
    ->Apply(parsgd::bench::ThreadFamily)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

PARSGD_BENCHMARK_MAIN();
