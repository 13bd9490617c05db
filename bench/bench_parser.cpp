// Loading speed: LIBSVM parsing, binary cache reading and generation, at 1 and 2 threads.
//
// The data: GenerateSparse with 100,000 rows x 50,000 features x 70 nonzeros per row (RCV1's
// shape), written once to a temporary folder as LIBSVM text and as a binary cache. Each thread
// count runs inside its own tbb::task_arena. Counters: bytes/s of input (file size / wall time)
// and MB/s per thread; entries/s for the generator.
//
//   build/bench/bench_parser --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "parsgd/data/binary_cache.hpp"
#include "parsgd/data/generator.hpp"
#include "parsgd/data/libsvm.hpp"

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
  }
  ~Files() { fs::remove_all(folder); }

  fs::path folder;
  std::string libsvm;
  std::string cache;
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
