// One epoch of logistic regression per scheme, at 1 and 2 threads, on the RCV1-shaped set
// (500,000 x 50,000, ~70 nonzeros per row). Counters: samples/s and nonzeros/s (wall time).
#include <benchmark/benchmark.h>

#include "bench_common.hpp"
#include "parsgd/train/trainer.hpp"

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
}

void BM_Epoch_Sequential(benchmark::State& s) { RunEpochs(s, SchemeKind::kSequential); }
void BM_Epoch_Hogwild(benchmark::State& s) { RunEpochs(s, SchemeKind::kHogwild); }
void BM_Epoch_Locked(benchmark::State& s) { RunEpochs(s, SchemeKind::kLocked); }
void BM_Epoch_Striped(benchmark::State& s) { RunEpochs(s, SchemeKind::kStriped); }
void BM_Epoch_Atomic(benchmark::State& s) { RunEpochs(s, SchemeKind::kAtomic); }

#define PARSGD_EPOCH_BENCH(fn) \
  BENCHMARK(fn)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0)

BENCHMARK(BM_Epoch_Sequential)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
PARSGD_EPOCH_BENCH(BM_Epoch_Hogwild);
PARSGD_EPOCH_BENCH(BM_Epoch_Locked);
PARSGD_EPOCH_BENCH(BM_Epoch_Striped);
PARSGD_EPOCH_BENCH(BM_Epoch_Atomic);

}  // namespace
}  // namespace parsgd

BENCHMARK_MAIN();
