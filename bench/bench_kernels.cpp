// The sparse kernels of one SGD step, in isolation: the dot product (scores) and the update, with
// each write policy, on rows of 70 random ascending indices over 50,000 weights (L2-resident, as
// for the RCV1-shaped set). One thread: these measure the instruction cost, not contention.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

constexpr uint32_t kFeatures = 50000;
constexpr uint32_t kNnz = 70;
constexpr int kRows = 4096;

struct Rows {
  std::vector<uint32_t> index;
  std::vector<float> value;
  Rows() {
    Rng rng(1);
    for (int r = 0; r < kRows; ++r) {
      std::vector<uint32_t> cols;
      while (cols.size() < kNnz) {
        const auto j = static_cast<uint32_t>(rng.Uniform(kFeatures));
        if (std::find(cols.begin(), cols.end(), j) == cols.end()) cols.push_back(j);
      }
      std::sort(cols.begin(), cols.end());
      index.insert(index.end(), cols.begin(), cols.end());
      for (uint32_t k = 0; k < kNnz; ++k) value.push_back(static_cast<float>(rng.UniformDouble()));
    }
  }
  SparseRow Row(int r) const { return {index.data() + r * kNnz, value.data() + r * kNnz, kNnz}; }
};

const Rows& TheRows() {
  static const Rows rows;
  return rows;
}

void SetCounters(benchmark::State& state) {
  state.counters["nnz/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * kNnz,
                                               benchmark::Counter::kIsRate);
}

void BM_SparseDot_Relaxed(benchmark::State& state) {
  std::vector<float> w(kFeatures + 1, 0.01f);
  const LinearParams p{{w.data(), nullptr, nullptr}, kFeatures, 1, nullptr};
  float z[1];
  int r = 0;
  for (auto _ : state) {
    LinearScores<1>(p, TheRows().Row(r), z);
    benchmark::DoNotOptimize(z[0]);
    r = (r + 1) % kRows;
  }
  SetCounters(state);
}
BENCHMARK(BM_SparseDot_Relaxed);

// The non-atomic reference: what a plain-float (racy, undefined) implementation would cost.
void BM_SparseDot_Plain(benchmark::State& state) {
  std::vector<float> w(kFeatures + 1, 0.01f);
  int r = 0;
  for (auto _ : state) {
    const SparseRow x = TheRows().Row(r);
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t e = 0;
    for (; e + 4 <= x.nnz; e += 4) {
      s0 += x.value[e] * w[x.index[e]];
      s1 += x.value[e + 1] * w[x.index[e + 1]];
      s2 += x.value[e + 2] * w[x.index[e + 2]];
      s3 += x.value[e + 3] * w[x.index[e + 3]];
    }
    for (; e < x.nnz; ++e) s0 += x.value[e] * w[x.index[e]];
    benchmark::DoNotOptimize((s0 + s1) + (s2 + s3));
    r = (r + 1) % kRows;
  }
  SetCounters(state);
}
BENCHMARK(BM_SparseDot_Plain);

template <class Write>
void Update(benchmark::State& state, bool regularised) {
  std::vector<float> w(kFeatures + 1, 0.01f);
  std::vector<FeatureRate> reg(kFeatures, FeatureRate{1.f, 1e-3f});
  const LinearParams p{
      {w.data(), nullptr, nullptr}, kFeatures, 1, regularised ? reg.data() : nullptr};
  const float d = 1e-3f;
  const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.1f, 1);
  int r = 0;
  for (auto _ : state) {
    LinearUpdate<1, SgdRule, Write, Write>(p, TheRows().Row(r), &d, c);
    r = (r + 1) % kRows;
  }
  benchmark::DoNotOptimize(w.data());
  SetCounters(state);
}
void BM_SparseUpdate_Relaxed(benchmark::State& s) { Update<StoreWrite>(s, false); }
void BM_SparseUpdate_RelaxedL2(benchmark::State& s) { Update<StoreWrite>(s, true); }
void BM_SparseUpdate_Cas(benchmark::State& s) { Update<CasWrite>(s, false); }
BENCHMARK(BM_SparseUpdate_Relaxed);
BENCHMARK(BM_SparseUpdate_RelaxedL2);
BENCHMARK(BM_SparseUpdate_Cas);

// A whole logistic step (dot, loss, update with L2) under Hogwild! and atomic writes, and with each
// optimiser rule under Hogwild!.
template <class Scheme, class Rule>
void Step(benchmark::State& state, OptimizerKind kind) {
  std::vector<float> w(kFeatures + 1, 0.f), s0(kFeatures + 1, 0.f), s1(kFeatures + 1, 0.f);
  std::vector<FeatureRate> reg(kFeatures, FeatureRate{1.f, 1e-3f});
  const LinearParams p{{w.data(), s0.data(), s1.data()}, kFeatures, 1, reg.data()};
  OptimizerConfig config;
  config.kind = kind;
  const RuleContext c = MakeRuleContext(config, 0.01f, 100);
  Scheme scheme;
  float z[1];
  int r = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(LinearSgdStep<BinaryHead<LogisticLoss>, Rule>(
        {}, scheme, p, TheRows().Row(r), r % 2 ? 1.f : -1.f, 1.f, c, z));
    r = (r + 1) % kRows;
  }
  SetCounters(state);
}
void BM_LogisticStep_Hogwild(benchmark::State& s) {
  Step<HogwildScheme, SgdRule>(s, OptimizerKind::kSgd);
}
void BM_LogisticStep_Atomic(benchmark::State& s) {
  Step<AtomicScheme, SgdRule>(s, OptimizerKind::kSgd);
}
void BM_LogisticStep_Momentum(benchmark::State& s) {
  Step<HogwildScheme, MomentumRule>(s, OptimizerKind::kMomentum);
}
void BM_LogisticStep_AdaGrad(benchmark::State& s) {
  Step<HogwildScheme, AdaGradRule>(s, OptimizerKind::kAdaGrad);
}
void BM_LogisticStep_Adam(benchmark::State& s) {
  Step<HogwildScheme, AdamRule>(s, OptimizerKind::kAdam);
}
BENCHMARK(BM_LogisticStep_Hogwild);
BENCHMARK(BM_LogisticStep_Atomic);
BENCHMARK(BM_LogisticStep_Momentum);
BENCHMARK(BM_LogisticStep_AdaGrad);
BENCHMARK(BM_LogisticStep_Adam);

}  // namespace
}  // namespace parsgd

BENCHMARK_MAIN();
