// The asynchronous schemes: every worker walks its own samples and updates the shared parameters
// after each one, under the scheme's write policy and guard.
#include <type_traits>
#include <vector>

#include "epoch_runner.hpp"
#include "row_prefetch.hpp"

namespace parsgd {
namespace {

// One worker's own state, on its own cache lines: scratch and the counters it flushes once per
// epoch (no shared counter is touched per sample).
struct alignas(kCacheLine) WorkerState {
  std::vector<uint32_t> order_scratch;
  std::vector<float> z;
  double loss_sum = 0;
  uint64_t updates = 0;
};

template <class Scheme>
Scheme MakeScheme(uint64_t features, int outputs) {
  if constexpr (std::is_constructible_v<Scheme, uint64_t, int>) {
    return Scheme(features, outputs);
  } else {
    return Scheme();
  }
}

template <class Head, class Rule, class Scheme>
class AsyncRunner final : public LinearRunner {
 public:
  explicit AsyncRunner(const RunnerShape& shape)
      : scheme_(MakeScheme<Scheme>(shape.features, shape.outputs)), workers_(shape.workers) {
    for (WorkerState& w : workers_) w.z.resize(shape.outputs);
  }

  EpochTotals Run(const LinearContext& c) override {
    c.executor->RunWorkers(c.workers, [&](int w) { RunWorker(c, w, workers_[w]); });
    EpochTotals totals;
    for (const WorkerState& w : workers_) {  // worker order: deterministic for one worker
      totals.loss_sum += w.loss_sum;
      totals.updates += w.updates;
    }
    return totals;
  }

 private:
  void RunWorker(const LinearContext& c, int worker, WorkerState& state) {
    const std::span<const uint32_t> indices = c.order->Indices(c.epoch, worker, state.order_scratch);
    const std::atomic<bool>& stop = c.executor->stop_flag();
    const double rows = static_cast<double>(c.data->rows());
    float* z = state.z.data();
    double loss = 0;
    uint64_t done = 0;
    const uint64_t n = indices.size();
    for (uint64_t begin = 0; begin < n; begin += kStepBlock) {
      if (stop.load(std::memory_order_relaxed)) break;
      // This worker's samples, scaled by the worker count, estimate the whole run's progress.
      const double samples = static_cast<double>(begin) * c.workers;
      const RuleContext rc =
          MakeRuleContext(c.optimizer, StepAt(c, samples), c.epoch * rows + samples + 1);
      const uint64_t end = std::min(n, begin + kStepBlock);
      for (uint64_t i = begin; i < end; ++i) {
        PrefetchAhead(*c.data, c.targets, indices, i);
        const uint32_t r = indices[i];
        loss += LinearSgdStep<Head, Rule>(scheme_, c.params, c.data->row(r), c.targets[r], rc, z);
      }
      done = end;
    }
    state.loss_sum = loss;
    state.updates = done;
  }

  Scheme scheme_;
  std::vector<WorkerState> workers_;
};

template <class Head, class Rule>
std::unique_ptr<LinearRunner> ForScheme(SchemeKind scheme, const RunnerShape& shape) {
  switch (scheme) {
    case SchemeKind::kHogwild:
      return std::make_unique<AsyncRunner<Head, Rule, HogwildScheme>>(shape);
    case SchemeKind::kLocked:
      return std::make_unique<AsyncRunner<Head, Rule, LockedScheme>>(shape);
    case SchemeKind::kStriped:
      return std::make_unique<AsyncRunner<Head, Rule, StripedScheme>>(shape);
    case SchemeKind::kAtomic:
      return std::make_unique<AsyncRunner<Head, Rule, AtomicScheme>>(shape);
    default:
      return std::make_unique<AsyncRunner<Head, Rule, SequentialScheme>>(shape);
  }
}

}  // namespace

std::unique_ptr<LinearRunner> MakeAsyncRunner(const TrainConfig& config, const RunnerShape& shape) {
  return WithHead(config.model, [&]<class Head>(Head) {
    return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) {
      return ForScheme<Head, Rule>(config.scheme, shape);
    });
  });
}

}  // namespace parsgd
