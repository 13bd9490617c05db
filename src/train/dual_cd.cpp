// --solver dual-cd: dual coordinate descent for the L1-loss SVM (`--model hinge`; Hsieh, Chang, Lin,
// Keerthi and Sundararajan, ICML 2008; LIBLINEAR -s 3), run by the asynchronous schemes
// (async_scheme.hpp): each worker walks its shard and, for each sample i, takes the exact step on
// its dual variable a_i, then moves the shared weights by (a_i' - a_i) y_i x_i under the scheme's
// write policy. Hogwild! is PASSCoDe-Wild (Hsieh, Yu and Dhillon, ICML 2015), atomic
// PASSCoDe-Atomic, locked and striped PASSCoDe-Lock.
//
// The problem is parsgd's objective mean_i hinge(y_i w.x_i) + l2 / 2 ||w||^2 without a bias, which
// is 1 / (C n) times LIBLINEAR's 1/2 ||w||^2 + C sum_i hinge(y_i w.x_i) with C = 1 / (n l2). Its dual:
//     max_a  sum_i a_i - 1/2 ||sum_i a_i y_i x_i||^2,  0 <= a_i <= C,  w = sum_i a_i y_i x_i.
// The step on a_i: G = y_i w.x_i - 1, a_i' = min(max(a_i - G / Q_ii, 0), C), Q_ii = ||x_i||^2
// (summed with the dot product); nothing moves where the projected gradient is 0. The progressive
// loss is each sample's hinge loss before its step. The dual variables are part of the run's state
// (checkpoints); a worker reads and writes a_i with relaxed atomics (with --order random two
// workers may draw the same sample).
#include <algorithm>
#include <atomic>

#include "async_scheme.hpp"
#include "epoch_runner.hpp"
#include "row_prefetch.hpp"

namespace parsgd {
namespace {

template <class Scheme>
class DualCdLocal {
 public:
  using Context = LinearContext;

  DualCdLocal(const RunnerShape& shape, double c)
      : scheme_(MakeScheme<Scheme>(shape.features, shape.outputs)),
        workers_(shape.workers),
        dual_(AlignedArray<float>::Zeroed(shape.rows)),
        c_(static_cast<float>(c)) {}

  std::span<const uint32_t> Shard(const Context& c, int w) {
    return c.order->Indices(c.epoch, w, workers_[w].order_scratch);
  }
  uint64_t Block(const Context&) const { return kStepBlock; }
  double SamplesPerUpdate(const Context&) const { return 1; }

  void Train(const Context& c, int, std::span<const uint32_t> shard, uint64_t begin, uint64_t end,
             const RuleContext&, double& loss) {
    using Write = typename Scheme::Write;
    float* const w = c.params.arrays.weights;
    for (uint64_t i = begin; i < end; ++i) {
      PrefetchAhead(*c.data, c.targets, shard, i);
      const uint32_t r = shard[i];
      const SparseRow x = c.data->row(r);
      const float y = c.targets[r];
      typename Scheme::Guard guard(scheme_, x);
      float dot = 0, q = 0;
      for (uint32_t e = 0; e < x.nnz; ++e) {
        const float v = x.value[e];
        dot += v * Write::Load(w[x.index[e]]);
        q += v * v;
      }
      const float g = y * dot - 1.f;
      loss += std::max(-g, 0.f);
      std::atomic_ref<float> dual(dual_[r]);
      const float a = dual.load(std::memory_order_relaxed);
      const float projected = a <= 0.f ? std::min(g, 0.f) : a >= c_ ? std::max(g, 0.f) : g;
      if (projected == 0.f || q == 0.f) continue;
      const float next = std::min(std::max(a - g / q, 0.f), c_);
      dual.store(next, std::memory_order_relaxed);
      const float delta = (next - a) * y;
      for (uint32_t e = 0; e < x.nnz; ++e) {
        const float step = delta * x.value[e];
        Write::Modify(w[x.index[e]], [step](float old) { return old + step; });
      }
    }
  }

  void Save(TrainingState& s) const { s.Put("dual", dual_.span()); }
  void Load(const TrainingState& s) { s.Get("dual", dual_.span()); }

 private:
  struct alignas(kCacheLine) Worker {
    std::vector<uint32_t> order_scratch;
  };

  Scheme scheme_;
  std::vector<Worker> workers_;
  AlignedArray<float> dual_;  // a_i per training row, in [0, C]
  float c_;
};

template <class Scheme>
std::unique_ptr<LinearRunner> Make(const RunnerShape& shape, double c) {
  return std::make_unique<AsyncRunner<LinearParams, DualCdLocal<Scheme>>>(shape.workers, shape, c);
}

}  // namespace

std::unique_ptr<LinearRunner> MakeDualCdRunner(const TrainConfig& config, const RunnerShape& shape) {
  const double c = 1.0 / (static_cast<double>(shape.rows) * config.l2);  // l2 resolved, > 0
  switch (config.scheme) {
    case SchemeKind::kHogwild:
      return Make<HogwildScheme>(shape, c);
    case SchemeKind::kLocked:
      return Make<LockedScheme>(shape, c);
    case SchemeKind::kStriped:
      return Make<StripedScheme>(shape, c);
    case SchemeKind::kAtomic:
      return Make<AtomicScheme>(shape, c);
    default:  // sequential (ValidateConfig refuses the others)
      return Make<SequentialScheme>(shape, c);
  }
}

}  // namespace parsgd
