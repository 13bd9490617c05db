// The sparse kernels of one SGD step, in isolation: the dot product (scores) and the update, with
// each write policy, on rows of 70 random ascending indices over 50,000 weights (L2-resident, as
// for the RCV1-shaped set); one thread for the instruction cost, and the Hogwild! update on shared
// weights from 1 thread up to every core for the contention. And the average scheme's combining
// step, the plain mean against the touched rule. Each checks its result against a reference
// written from the definition before it is timed (a wrong kernel is an error, not a number).
// Counters: nonzeros/s, and the bytes the kernel reads and writes per second (12 a nonzero for
// the dot: index, value, weight; 16 for the update, the weight written back), cache-resident.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench_common.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/util/rng.hpp"
#include "scheme/replicas.hpp"

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

// nnz/s and bytes/s (`bytes` a nonzero), summed over a family's threads.
void SetCounters(benchmark::State& state, double bytes = 12) {
  const double nnz = static_cast<double>(state.iterations()) * kNnz;
  state.counters["nnz/s"] = benchmark::Counter(nnz, benchmark::Counter::kIsRate);
  state.counters["bytes/s"] =
      benchmark::Counter(nnz * bytes, benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

// The dot product against the same sum in double over the first rows; false (and the benchmark
// skipped with the error) where any differs by more than float rounding.
bool CheckDot(benchmark::State& state, const std::vector<float>& w, Isa isa) {
  LinearParams p{{const_cast<float*>(w.data()), nullptr, nullptr}, kFeatures, 1, nullptr};
  p.isa = isa;
  for (int r = 0; r < 64; ++r) {
    const SparseRow x = TheRows().Row(r);
    double expected = w[kFeatures];  // the bias
    for (uint32_t e = 0; e < x.nnz; ++e) expected += double{x.value[e]} * w[x.index[e]];
    float z[1];
    LinearScores<1>(p, x, z);
    if (std::fabs(z[0] - expected) > 1e-5 * (1 + std::fabs(expected))) {
      state.SkipWithError("the dot product differs from the reference");
      return false;
    }
  }
  return true;
}

// One plain-SGD update without L2 (w_j -= eta d x_j, the bias by eta d) against that formula.
template <class Write>
bool CheckUpdate(benchmark::State& state, Isa isa) {
  std::vector<float> w(kFeatures + 1, 0.01f);
  LinearParams p{{w.data(), nullptr, nullptr}, kFeatures, 1, nullptr};
  p.isa = isa;
  const float d = 1e-3f, eta = 0.1f;
  const RuleContext c = MakeRuleContext(OptimizerConfig{}, eta, 1);
  const SparseRow x = TheRows().Row(0);
  LinearUpdate<1, SgdRule, Write, Write>(p, x, &d, c);
  for (uint32_t e = 0; e < x.nnz; ++e) {
    const double expected = 0.01 - double{eta} * d * x.value[e];
    if (std::fabs(w[x.index[e]] - expected) > 1e-7) {
      state.SkipWithError("the update differs from w_j - eta d x_j");
      return false;
    }
  }
  return true;
}

// False (and the benchmark skipped) where this CPU lacks the path.
bool HasIsa(benchmark::State& state, Isa isa) {
  if (CpuSupports(isa)) return true;
  state.SkipWithError("this CPU has no such vector unit");
  return false;
}

// The dot product under relaxed loads, on each path of parsgd/kernel/isa.hpp.
void BM_SparseDot(benchmark::State& state, Isa isa) {
  if (!HasIsa(state, isa)) return;
  std::vector<float> w(kFeatures + 1, 0.01f);
  for (uint32_t j = 0; j <= kFeatures; ++j) w[j] = 0.01f * static_cast<float>(j % 7);
  if (!CheckDot(state, w, isa)) return;
  LinearParams p{{w.data(), nullptr, nullptr}, kFeatures, 1, nullptr};
  p.isa = isa;
  float z[1];
  int r = 0;
  for (auto _ : state) {
    LinearScores<1>(p, TheRows().Row(r), z);
    benchmark::DoNotOptimize(z[0]);
    r = (r + 1) % kRows;
  }
  SetCounters(state);
}
BENCHMARK_CAPTURE(BM_SparseDot, scalar, Isa::kScalar);
BENCHMARK_CAPTURE(BM_SparseDot, avx2, Isa::kAvx2);
BENCHMARK_CAPTURE(BM_SparseDot, avx512, Isa::kAvx512);

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
void Update(benchmark::State& state, bool regularised, Isa isa) {
  if (!HasIsa(state, isa) || !CheckUpdate<Write>(state, isa)) return;
  std::vector<float> w(kFeatures + 1, 0.01f);
  std::vector<FeatureRate> reg(kFeatures, FeatureRate{1.f, 1e-3f});
  LinearParams p{{w.data(), nullptr, nullptr}, kFeatures, 1, regularised ? reg.data() : nullptr};
  p.isa = isa;
  const float d = 1e-3f;
  const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.1f, 1);
  int r = 0;
  for (auto _ : state) {
    LinearUpdate<1, SgdRule, Write, Write>(p, TheRows().Row(r), &d, c);
    r = (r + 1) % kRows;
  }
  benchmark::DoNotOptimize(w.data());
  SetCounters(state, 16);
}
// Plain SGD's update under relaxed stores on each path, without and with the L2 rates; under
// compare-and-swap (scalar alone: no vector path writes by compare-and-swap).
void BM_SparseUpdate_Relaxed(benchmark::State& s, Isa isa) { Update<StoreWrite>(s, false, isa); }
void BM_SparseUpdate_RelaxedL2(benchmark::State& s, Isa isa) { Update<StoreWrite>(s, true, isa); }
void BM_SparseUpdate_Cas(benchmark::State& s) { Update<CasWrite>(s, false, Isa::kScalar); }
BENCHMARK_CAPTURE(BM_SparseUpdate_Relaxed, scalar, Isa::kScalar);
BENCHMARK_CAPTURE(BM_SparseUpdate_Relaxed, avx2, Isa::kAvx2);
BENCHMARK_CAPTURE(BM_SparseUpdate_Relaxed, avx512, Isa::kAvx512);
BENCHMARK_CAPTURE(BM_SparseUpdate_RelaxedL2, scalar, Isa::kScalar);
BENCHMARK_CAPTURE(BM_SparseUpdate_RelaxedL2, avx2, Isa::kAvx2);
BENCHMARK_CAPTURE(BM_SparseUpdate_RelaxedL2, avx512, Isa::kAvx512);
BENCHMARK(BM_SparseUpdate_Cas);

// The K-score kernels (softmax, one-vs-rest), K = 10: the row's scores and plain SGD's update with
// the L2 rates under relaxed writes, on each path. nnz/s counts a row's nonzeros (each moves K
// weights). Checked first: the path's model after 64 rows is the scalar path's, bit for bit.
void BM_SoftmaxRows(benchmark::State& state, Isa isa) {
  if (!HasIsa(state, isa)) return;
  constexpr int kClasses = 10;
  std::vector<FeatureRate> reg(kFeatures, FeatureRate{1.f, 1e-3f});
  std::vector<float> d(kClasses, 1e-3f), z(kClasses);
  const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.1f, 1);
  auto run = [&](std::vector<float>& w, Isa path, int rows) {
    LinearParams p{{w.data(), nullptr, nullptr}, kFeatures, kClasses, reg.data()};
    p.isa = path;
    for (int r = 0; r < rows; ++r) {
      LinearScores<0>(p, TheRows().Row(r % kRows), z.data());
      LinearUpdate<0, SgdRule, StoreWrite, StoreWrite>(p, TheRows().Row(r % kRows), d.data(), c);
    }
  };
  std::vector<float> scalar((kFeatures + 1) * kClasses, 0.01f), path = scalar;
  run(scalar, Isa::kScalar, 64);
  run(path, isa, 64);
  if (scalar != path) {
    state.SkipWithError("the path's model differs from the scalar path's");
    return;
  }
  LinearParams p{{path.data(), nullptr, nullptr}, kFeatures, kClasses, reg.data()};
  p.isa = isa;
  int r = 0;
  for (auto _ : state) {
    LinearScores<0>(p, TheRows().Row(r), z.data());
    LinearUpdate<0, SgdRule, StoreWrite, StoreWrite>(p, TheRows().Row(r), d.data(), c);
    r = (r + 1) % kRows;
  }
  SetCounters(state, 12 + 8 * kClasses);
}
BENCHMARK_CAPTURE(BM_SoftmaxRows, scalar, Isa::kScalar);
BENCHMARK_CAPTURE(BM_SoftmaxRows, avx2, Isa::kAvx2);
BENCHMARK_CAPTURE(BM_SoftmaxRows, avx512, Isa::kAvx512);

// The Hogwild! update from 1 thread up to every core, on one shared weight vector (relaxed atomic
// stores, as the scheme's, on the path in use), each thread on its own rows: what two cores
// writing the same cache lines cost. nnz/s and bytes/s are the threads' sum.
std::vector<float>& SharedWeights() {
  static std::vector<float> w(kFeatures + 1, 0.01f);
  return w;
}
void BM_SparseUpdate_HogwildThreads(benchmark::State& state) {
  if (state.thread_index() == 0 && !CheckUpdate<StoreWrite>(state, ActiveIsa())) return;
  LinearParams p{{SharedWeights().data(), nullptr, nullptr}, kFeatures, 1, nullptr};
  p.isa = ActiveIsa();
  const float d = 1e-3f;
  const RuleContext c = MakeRuleContext(OptimizerConfig{}, 0.1f, 1);
  int r = state.thread_index() * 997 % kRows;
  for (auto _ : state) {
    LinearUpdate<1, SgdRule, StoreWrite, StoreWrite>(p, TheRows().Row(r), &d, c);
    r = (r + 1) % kRows;
  }
  SetCounters(state, 16);
}
BENCHMARK(BM_SparseUpdate_HogwildThreads)
    ->ThreadRange(1, std::max(1, AvailableCores()))
    ->UseRealTime();

// The average scheme's combining step over the whole model (50,000 weights and the bias) for W
// replicas (range(0)) that each moved a random quarter of the coordinates: the plain mean
// (Replicas::Average) against the touched rule's mean (Replicas::TouchedMeanInto, then Assign),
// checked against the definitions first. bytes/s: the replicas' weights read and written.
struct CombineSetUp {
  std::vector<float> anchor;
  Replicas replicas;
  CombineSetUp(int workers) : anchor(kFeatures + 1, 0.5f), replicas(workers, kFeatures + 1) {
    Rng rng(7);
    for (int w = 0; w < workers; ++w) {
      replicas.MakeFrom(w, {anchor.data(), nullptr, nullptr});
      for (uint32_t j = 0; j <= kFeatures; ++j) {
        if (rng.Uniform(4) == 0) replicas.data(w, Replicas::kWeights)[j] = rng.UniformDouble();
      }
    }
  }
};

bool CheckCombine(benchmark::State& state, int workers) {
  CombineSetUp mean(workers), touched(workers);
  std::vector<float> rule(kFeatures + 1);
  touched.replicas.TouchedMeanInto(Replicas::kWeights, 0, kFeatures + 1, touched.anchor.data(),
                                   rule.data());
  for (uint32_t j = 0; j <= kFeatures; ++j) {
    double sum = 0, moved_sum = 0;
    int moved = 0;
    for (int w = 0; w < workers; ++w) {
      const float x = mean.replicas.data(w, Replicas::kWeights)[j];
      sum += x;
      if (x != mean.anchor[j]) {
        moved_sum += x;
        ++moved;
      }
    }
    const double touched_mean = moved == 0 ? mean.anchor[j] : moved_sum / moved;
    if (std::fabs(rule[j] - touched_mean) > 1e-6) {
      state.SkipWithError("the touched mean differs from its definition");
      return false;
    }
    mean.replicas.Average(Replicas::kWeights, j, j + 1);
    if (std::fabs(mean.replicas.data(0, Replicas::kWeights)[j] - sum / workers) > 1e-6) {
      state.SkipWithError("the mean differs from its definition");
      return false;
    }
  }
  return true;
}

void BM_Combine_Mean(benchmark::State& state) {
  const int workers = static_cast<int>(state.range(0));
  if (!CheckCombine(state, workers)) return;
  CombineSetUp s(workers);
  for (auto _ : state) {
    s.replicas.Average(Replicas::kWeights, 0, kFeatures + 1);
    benchmark::ClobberMemory();
  }
  state.counters["bytes/s"] = benchmark::Counter(
      2.0 * workers * (kFeatures + 1) * sizeof(float) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}
void BM_Combine_Touched(benchmark::State& state) {
  const int workers = static_cast<int>(state.range(0));
  if (!CheckCombine(state, workers)) return;
  CombineSetUp s(workers);
  for (auto _ : state) {
    s.replicas.TouchedMeanInto(Replicas::kWeights, 0, kFeatures + 1, s.anchor.data(),
                               s.anchor.data());
    s.replicas.Assign(Replicas::kWeights, 0, kFeatures + 1, s.anchor.data());
    benchmark::ClobberMemory();
  }
  state.counters["bytes/s"] = benchmark::Counter(
      2.0 * workers * (kFeatures + 1) * sizeof(float) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}
BENCHMARK(BM_Combine_Mean)->Arg(2)->Arg(8);
BENCHMARK(BM_Combine_Touched)->Arg(2)->Arg(8);

// A whole logistic step (dot, loss, update with L2) under Hogwild! on each path and under atomic
// writes, and with each optimiser rule under Hogwild! (on the path in use).
template <class Scheme, class Rule>
void Step(benchmark::State& state, OptimizerKind kind, Isa isa = ActiveIsa()) {
  if (!HasIsa(state, isa)) return;
  std::vector<float> w(kFeatures + 1, 0.f), s0(kFeatures + 1, 0.f), s1(kFeatures + 1, 0.f);
  std::vector<FeatureRate> reg(kFeatures, FeatureRate{1.f, 1e-3f});
  LinearParams p{{w.data(), s0.data(), s1.data()}, kFeatures, 1, reg.data()};
  p.isa = isa;
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
void BM_LogisticStep_Hogwild(benchmark::State& s, Isa isa) {
  Step<HogwildScheme, SgdRule>(s, OptimizerKind::kSgd, isa);
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
BENCHMARK_CAPTURE(BM_LogisticStep_Hogwild, scalar, Isa::kScalar);
BENCHMARK_CAPTURE(BM_LogisticStep_Hogwild, avx2, Isa::kAvx2);
BENCHMARK_CAPTURE(BM_LogisticStep_Hogwild, avx512, Isa::kAvx512);
BENCHMARK(BM_LogisticStep_Atomic);
BENCHMARK(BM_LogisticStep_Momentum);
BENCHMARK(BM_LogisticStep_AdaGrad);
BENCHMARK(BM_LogisticStep_Adam);

}  // namespace
}  // namespace parsgd

PARSGD_BENCHMARK_MAIN();
