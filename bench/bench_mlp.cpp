// The MLP's dense compute at batch 64: the whole 784-256-128-10 minibatch step and one 784-256
// layer, oneDNN against the plain-loop reference, and oneDNN's matrix-multiply rate at the layer
// shapes (a forward pass of a one-layer net is one matmul plus the bias), which bounds an epoch.
// Counters: samples/s and FLOP/s (2 per multiply-add; a step counts forward, weight gradients and
// the input gradients of every layer but the first).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_common.hpp"
#include "parsgd/model/mlp/mlp_engine.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr int kBatch = 64;

double StepFlops(const MlpModel& model) {
  double flops = 0;
  for (std::size_t l = 0; l < model.layers().size(); ++l) {
    const double mac = 2.0 * model.layers()[l].inputs * model.layers()[l].outputs;
    flops += mac * (l == 0 ? 2 : 3);  // forward + dW (+ dA except for the first layer)
  }
  return flops;
}

void Step(benchmark::State& state, MlpBackend backend, std::vector<int> sizes) {
  const int threads = static_cast<int>(state.range(0));
  const MlpModel model(sizes, 1);
  auto engine = MakeMlpEngine(backend, sizes, kBatch, threads);
  Rng rng(2);
  std::vector<float> x(static_cast<std::size_t>(kBatch) * sizes.front());
  for (float& v : x) v = static_cast<float>(rng.UniformDouble());
  std::vector<int> labels(kBatch);
  for (int& y : labels) y = static_cast<int>(rng.Uniform(sizes.back()));
  std::vector<float> grad(model.params().size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine->LossAndGradient(model.params().data(), x.data(), labels.data(),
                                                     nullptr, kBatch, grad.data()));
  }
  state.counters["samples/s"] =
      benchmark::Counter(double(kBatch) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["FLOP/s"] = benchmark::Counter(StepFlops(model) * kBatch * state.iterations(),
                                                benchmark::Counter::kIsRate);
}

void Forward(benchmark::State& state, std::vector<int> sizes) {
  const int threads = static_cast<int>(state.range(0));
  const MlpModel model(sizes, 1);
  auto engine = MakeMlpEngine(MlpBackend::kOneDnn, sizes, kBatch, threads);
  std::vector<float> x(static_cast<std::size_t>(kBatch) * sizes.front(), 0.5f);
  std::vector<float> scores(static_cast<std::size_t>(kBatch) * sizes.back());
  for (auto _ : state) {
    engine->Scores(model.params().data(), x.data(), kBatch, scores.data());
    benchmark::DoNotOptimize(scores.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(model.ForwardFlops() * kBatch * state.iterations(),
                                                benchmark::Counter::kIsRate);
}

void BM_MlpStep_OneDnn(benchmark::State& s) { Step(s, MlpBackend::kOneDnn, {784, 256, 128, 10}); }
void BM_MlpStep_Reference(benchmark::State& s) {
  Step(s, MlpBackend::kReference, {784, 256, 128, 10});
}
void BM_Layer784x256_OneDnn(benchmark::State& s) { Step(s, MlpBackend::kOneDnn, {784, 256}); }
void BM_Layer784x256_Reference(benchmark::State& s) { Step(s, MlpBackend::kReference, {784, 256}); }
void BM_Gemm64x784x256_OneDnn(benchmark::State& s) { Forward(s, {784, 256}); }
void BM_Gemm64x256x128_OneDnn(benchmark::State& s) { Forward(s, {256, 128}); }

BENCHMARK(BM_MlpStep_OneDnn)->Apply(parsgd::bench::ThreadFamily)->UseRealTime();
BENCHMARK(BM_MlpStep_Reference)->Arg(1)->UseRealTime();
BENCHMARK(BM_Layer784x256_OneDnn)->Arg(1)->UseRealTime();
BENCHMARK(BM_Layer784x256_Reference)->Arg(1)->UseRealTime();
BENCHMARK(BM_Gemm64x784x256_OneDnn)->Apply(parsgd::bench::ThreadFamily)->UseRealTime();
BENCHMARK(BM_Gemm64x256x128_OneDnn)->Apply(parsgd::bench::ThreadFamily)->UseRealTime();

}  // namespace
}  // namespace parsgd

PARSGD_BENCHMARK_MAIN();
