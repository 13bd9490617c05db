// One epoch of logistic regression per scheme, from 1 thread (the baseline) up to every core, on
// the RCV1-shaped set (500,000 x 50,000, ~70 nonzeros per row). Counters: samples/s, nonzeros/s,
// the data's bytes read per second and their share of the machine's measured read bandwidth
// (bench_common.hpp). Each run first checks its epoch: a finite objective below the zero model's
// (log 2) after one untimed epoch; the row-reading floor checks its sum against file order's.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "bench_common.hpp"
#include "parsgd/data/row_prefetch.hpp"
#include "parsgd/order/sample_order.hpp"
#include "parsgd/run/trainer.hpp"

namespace parsgd {
namespace {

void RunEpochs(benchmark::State& state, SchemeKind scheme, ModelKind model = ModelKind::kLogistic) {
  const Dataset& data = bench::Rcv1Shaped();
  const int threads = static_cast<int>(state.range(0));
  TrainConfig config;
  config.model = model;
  config.scheme = scheme;
  config.threads = threads;
  config.epochs = 1000000;
  auto executor = MakeTbbExecutor(threads);
  Trainer trainer(config, data, nullptr, *executor);
  const EpochReport first = trainer.RunEpoch();  // the check, untimed
  if (!(first.objective < std::log(2.0))) {
    state.SkipWithError("the first epoch did not lower the objective below the zero model's");
    return;
  }
  double train_seconds = 0;
  uint64_t samples = 0;
  for (auto _ : state) {
    const EpochReport r = trainer.RunEpoch();
    train_seconds += r.train_seconds;
    samples += r.updates;
    // Time only the training part of the epoch (the evaluation is reported apart).
    state.SetIterationTime(r.train_seconds);
  }
  const double nnz_per_row = static_cast<double>(data.nnz()) / data.rows();
  state.counters["samples/s"] = samples / train_seconds;
  state.counters["nnz/s"] = samples * nnz_per_row / train_seconds;
  state.counters["nnz/s/thread"] = samples * nnz_per_row / train_seconds / threads;
  const double bytes = bench::DataBytes(data) * samples / data.rows() / train_seconds;
  state.counters["bytes/s"] =
      benchmark::Counter(bytes, benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
  state.counters["of_read_bandwidth"] = bytes / bench::ReadBandwidth();
}

// The floor: read every row once in a shuffled order (the same order and prefetching as training)
// and sum its values, with no model. No epoch of SGD can beat this on this machine.
void BM_ReadRowsShuffled(benchmark::State& state) {
  const Dataset& data = bench::Rcv1Shaped();
  SampleOrder order(OrderKind::kGlobal, data.rows(), 1, 1);
  order.PrepareEpoch(0);
  std::vector<uint32_t> scratch;
  const auto indices = order.Indices(0, 0, scratch);
  const uint64_t n = indices.size();
  const std::vector<float> targets(data.rows(), 1.f);
  auto sum_of = [&](const SparseRow& x) {
    double sum = 0;
    for (uint32_t e = 0; e < x.nnz; ++e) sum += x.value[e] * static_cast<double>(x.index[e] & 1);
    return sum;
  };
  double in_order = 0, shuffled = 0;
  for (uint64_t i = 0; i < n; ++i) {
    in_order += sum_of(data.row(i));
    shuffled += sum_of(data.row(indices[i]));
  }
  if (std::fabs(in_order - shuffled) > 1e-9 * std::fabs(in_order)) {
    state.SkipWithError("the shuffled order does not visit every row once");
    return;
  }
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    float sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
      PrefetchAhead(data, targets.data(), indices, i);
      const SparseRow x = data.row(indices[i]);
      for (uint32_t e = 0; e < x.nnz; ++e) sum += x.value[e] * static_cast<float>(x.index[e] & 1);
    }
    benchmark::DoNotOptimize(sum);
    const double pass =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(pass);
    seconds += pass;
  }
  const double passes = static_cast<double>(state.iterations());
  state.counters["nnz/s"] = static_cast<double>(data.nnz()) * passes / seconds;
  const double bytes = bench::DataBytes(data) * passes / seconds;
  state.counters["bytes/s"] =
      benchmark::Counter(bytes, benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
  state.counters["of_read_bandwidth"] = bytes / bench::ReadBandwidth();
}
BENCHMARK(BM_ReadRowsShuffled)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseManualTime();

// What the offload backend does on the host before each epoch: the epoch's sample order for all
// its device workers, in one array (then copied to the device, 4 bytes per row). range(0): order
// kind, range(1): workers.
void BM_OffloadEpochOrder(benchmark::State& state) {
  const uint64_t rows = 500000;
  const auto kind = static_cast<OrderKind>(state.range(0));
  const int workers = static_cast<int>(state.range(1));
  SampleOrder order(kind, rows, workers, 1);
  std::vector<uint32_t> all(rows), scratch;
  uint64_t epoch = 0;
  for (auto _ : state) {
    order.PrepareEpoch(epoch);
    for (int w = 0; w < workers; ++w) {
      const auto indices = order.Indices(epoch, w, scratch);
      std::copy(indices.begin(), indices.end(), all.begin() + order.ShardBegin(w));
    }
    benchmark::DoNotOptimize(all.data());
    ++epoch;
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows) * state.iterations(),
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_OffloadEpochOrder)
    ->ArgsProduct({{static_cast<int>(OrderKind::kRandom), static_cast<int>(OrderKind::kGlobal),
                    static_cast<int>(OrderKind::kLocal)},
                   {1, 65536}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Epoch_Sequential(benchmark::State& s) { RunEpochs(s, SchemeKind::kSequential); }
void BM_Epoch_Hogwild(benchmark::State& s) { RunEpochs(s, SchemeKind::kHogwild); }
void BM_Epoch_Locked(benchmark::State& s) { RunEpochs(s, SchemeKind::kLocked); }
void BM_Epoch_Striped(benchmark::State& s) { RunEpochs(s, SchemeKind::kStriped); }
void BM_Epoch_Atomic(benchmark::State& s) { RunEpochs(s, SchemeKind::kAtomic); }

#define PARSGD_EPOCH_BENCH(fn)        \
  BENCHMARK(fn)                       \
      ->Apply(bench::ThreadFamily)    \
      ->UseManualTime()               \
      ->Unit(benchmark::kMillisecond) \
      ->MinTime(2.0)

BENCHMARK(BM_Epoch_Sequential)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
PARSGD_EPOCH_BENCH(BM_Epoch_Hogwild);
PARSGD_EPOCH_BENCH(BM_Epoch_Locked);
PARSGD_EPOCH_BENCH(BM_Epoch_Striped);
PARSGD_EPOCH_BENCH(BM_Epoch_Atomic);

}  // namespace
}  // namespace parsgd

PARSGD_BENCHMARK_MAIN();
