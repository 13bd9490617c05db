// Loading speed: LIBSVM parsing, binary cache reading and generation, at 1 and 2 threads; the
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
  std::string libsvm;
  std::string cache;
  std::string table_csv;
  std::string table_svm;
};

const Files& TheFiles() {
  static const Files files;
  return files;
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
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadLibsvm(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ParseLibsvm)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The table as CSV and as LIBSVM text: the two readers' bytes/s on the same rows.
void BM_ParseTableCsv(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().table_csv;
  tbb::task_arena arena(threads);
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadCsv(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ParseTableCsv)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_ParseTableLibsvm(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().table_svm;
  tbb::task_arena arena(threads);
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadLibsvm(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ParseTableLibsvm)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_ReadBinaryCache(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string& path = TheFiles().cache;
  tbb::task_arena arena(threads);
  for (auto _ : state) {
    arena.execute([&] { benchmark::DoNotOptimize(parsgd::ReadBinaryCache(path).nnz()); });
  }
  SetByteCounters(state, fs::file_size(path), threads);
}
BENCHMARK(BM_ReadBinaryCache)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

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
BENCHMARK(BM_GenerateSparse)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
