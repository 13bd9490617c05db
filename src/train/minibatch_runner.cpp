// Synchronous minibatch SGD (the sync scheme, and the sequential scheme with --batch > 1).
//
// Each step takes a global minibatch of B samples: worker w contributes the next B_w of its own
// shard (B_w = B / W, the remainder going to the first workers), placed in worker order
// (sync_split.hpp). Phase A:
// every worker computes its samples' scores and loss derivatives from the same weights. Phase B:
// the owners of each feature block sum the minibatch's gradients for their features in batch order
// and apply the optimiser rule. Both phases are fork-joins, so the steps are separated by a barrier;
// every sum is taken in a fixed order, so the result does not depend on timing, and with one worker
// it is sequential minibatch SGD.
#include <algorithm>
#include <optional>
#include <vector>

#include "epoch_runner.hpp"
#include "gradient_sum.hpp"
#include "row_prefetch.hpp"
#include "sync_split.hpp"

namespace parsgd {
namespace {

template <class Head, class Rule>
class MinibatchRunner final : public LinearRunner {
 public:
  explicit MinibatchRunner(const RunnerShape& shape)
      : outputs_(shape.outputs),
        sum_(AlignedArray<float>::Zeroed((shape.features + 1) * shape.outputs)),
        count_(AlignedArray<uint32_t>::Zeroed(shape.features)),
        owners_(shape.features, shape.workers),
        workers_(shape.workers) {
    for (Worker& w : workers_) w.gradient.emplace(sum_.data(), count_.data(), shape.features, shape.outputs);
  }

  EpochTotals Run(const LinearContext& c) override {
    const int workers = c.workers;  // the trainer checked batch >= workers
    std::vector<std::span<const uint32_t>> shards(workers);
    c.executor->RunWorkers(workers, [&](int w) {
      shards[w] = c.order->Indices(c.epoch, w, workers_[w].order_scratch);
    });
    const SyncSplit split(std::move(shards), c.batch);
    const uint64_t steps = split.steps();
    std::vector<uint64_t> offset(workers + 1, 0);  // where each worker's samples start in the batch
    rows_.resize(c.batch);
    d_.resize(static_cast<std::size_t>(c.batch) * outputs_);
    loss_.resize(c.batch);

    EpochTotals totals;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    for (uint64_t s = 0; s < steps && !stop.load(std::memory_order_relaxed); ++s) {
      uint64_t size = 0;  // this step's batch: each worker's next samples, in worker order
      for (int w = 0; w < workers; ++w) {
        offset[w] = size;
        for (uint32_t r : split.Part(s, w)) rows_[size++] = r;
      }
      offset[workers] = size;
      const RuleContext rc = MakeRuleContext(c.optimizer, StepAt(c, static_cast<double>(totals.updates)),
                                             static_cast<double>(c.epoch * steps + s + 1));
      c.executor->RunWorkers(workers, [&](int w) { Derivatives(c, offset[w], offset[w + 1]); });
      c.executor->RunWorkers(workers, [&](int w) { SumAndApply(c, size, w, rc); });
      for (uint64_t i = 0; i < size; ++i) totals.loss_sum += loss_[i];  // batch order
      totals.updates += size;
    }
    return totals;
  }

 private:
  struct alignas(kCacheLine) Worker {
    std::vector<uint32_t> order_scratch;
    std::optional<GradientSum<Head::kOutputs>> gradient;
  };

  // Phase A: scores, losses and derivatives of batch positions [begin, end).
  void Derivatives(const LinearContext& c, uint64_t begin, uint64_t end) {
    const std::span<const uint32_t> rows(rows_.data() + begin, end - begin);
    for (uint64_t i = 0; i < rows.size(); ++i) {
      PrefetchAhead(*c.data, c.targets, rows, i);
      const uint32_t r = rows[i];
      float* d = d_.data() + (begin + i) * outputs_;
      LinearScores<Head::kOutputs>(c.params, c.data->row(r), d);
      loss_[begin + i] = Head::LossAndGradient(d, outputs_, c.targets[r]);
    }
  }

  // Phase B: worker w sums the gradients of the features it owns, in batch order, and applies them.
  void SumAndApply(const LinearContext& c, uint64_t size, int w, const RuleContext& rc) {
    auto& g = *workers_[w].gradient;
    for (uint64_t i = 0; i < size; ++i) {
      const float* d = d_.data() + i * outputs_;
      g.Add(c.data->row(rows_[i]), d, c.params.rates, [&](uint32_t j) { return owners_.Of(j) == w; });
      if (w == 0) g.AddBias(d);
    }
    // Nothing else writes these coordinates in this phase: plain relaxed stores suffice.
    g.template ApplyAndClear<Rule, StoreWrite>(c.params, static_cast<uint32_t>(size), rc);
  }

  int outputs_;
  AlignedArray<float> sum_;
  AlignedArray<uint32_t> count_;
  FeatureOwners owners_;
  std::vector<Worker> workers_;
  std::vector<uint32_t> rows_;  // the current minibatch, batch order
  std::vector<float> d_;        // its derivatives, outputs per sample
  std::vector<double> loss_;    // its losses
};

}  // namespace

std::unique_ptr<LinearRunner> MakeMinibatchRunner(const TrainConfig& config, const RunnerShape& shape) {
  return WithHead(config.model, [&]<class Head>(Head) {
    return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<LinearRunner> {
      return std::make_unique<MinibatchRunner<Head, Rule>>(shape);
    });
  });
}

}  // namespace parsgd
