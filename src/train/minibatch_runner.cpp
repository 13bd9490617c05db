// Synchronous minibatch SGD for the linear models (the sync scheme, and the sequential scheme with
// --batch > 1): the scheme is sync_runner.hpp; here the linear models' phases.
#include <algorithm>
#include <optional>
#include <vector>

#include "epoch_runner.hpp"
#include "gradient_sum.hpp"
#include "row_prefetch.hpp"
#include "sync_runner.hpp"

namespace parsgd {
namespace {

// The linear models' half of the sync scheme (sync_runner.hpp). Phase A: scores, losses and loss
// derivatives of the worker's samples, at their positions in the step's minibatch. Phase B: the
// owners of each feature block sum the minibatch's gradients for their features in batch order and
// apply the rule.
template <class Head, class Rule>
class LinearSyncLocal {
 public:
  using Context = LinearContext;

  explicit LinearSyncLocal(const RunnerShape& shape, int batch)
      : outputs_(shape.outputs),
        sum_(AlignedArray<float>::Zeroed((shape.features + 1) * shape.outputs)),
        count_(AlignedArray<uint32_t>::Zeroed(shape.features)),
        owners_(shape.features, shape.workers),
        workers_(shape.workers),
        rows_(batch),
        d_(static_cast<std::size_t>(batch) * shape.outputs),
        loss_(batch) {
    for (Worker& w : workers_)
      w.gradient.emplace(sum_.data(), count_.data(), shape.features, shape.outputs);
  }
  LinearSyncLocal(LinearSyncLocal&&) = default;

  std::span<const uint32_t> Shard(const Context& c, int w) {
    return c.order->Indices(c.epoch, w, workers_[w].order_scratch);
  }

  void Compute(const Context& c, const SyncSplit& split, uint64_t s, int w) {
    const std::span<const uint32_t> part = split.Part(s, w);
    const uint64_t begin = split.Offset(s, w);
    std::copy(part.begin(), part.end(), rows_.begin() + begin);
    for (uint64_t i = 0; i < part.size(); ++i) {
      PrefetchAhead(*c.data, c.targets, part, i);
      const uint32_t r = part[i];
      float* d = d_.data() + (begin + i) * outputs_;
      LinearScores<Head::kOutputs>(c.params, c.data->row(r), d);
      loss_[begin + i] = Head::LossAndGradient(d, outputs_, c.targets[r]);
    }
  }

  void Sum(const Context& c, const SyncSplit& split, uint64_t s, int w, uint64_t) {
    auto& g = *workers_[w].gradient;
    const uint64_t size = split.Offset(s, split.workers());
    for (uint64_t i = 0; i < size; ++i) {
      const float* d = d_.data() + i * outputs_;
      g.Add(c.data->row(rows_[i]), d, c.params.rates,
            [&](uint32_t j) { return owners_.Of(j) == w; });
      if (w == 0 && c.params.bias) g.AddBias(d);
    }
  }

  // The dense sums and counts of every rank, added in double (exact for the counts).
  void SumRanks(Communicator& ranks) {
    const uint64_t sums = sum_.size(), features = count_.size();
    ranks_buffer_.resize(sums + features);
    for (uint64_t k = 0; k < sums; ++k) ranks_buffer_[k] = sum_[k];
    for (uint64_t j = 0; j < features; ++j) ranks_buffer_[sums + j] = count_[j];
    ranks.SumAll(ranks_buffer_);
    for (uint64_t k = 0; k < sums; ++k) sum_[k] = static_cast<float>(ranks_buffer_[k]);
    for (uint64_t j = 0; j < features; ++j)
      count_[j] = static_cast<uint32_t>(ranks_buffer_[sums + j]);
  }

  void ApplySum(const Context& c, int w, uint64_t size, const RuleContext& rc, bool ranks) {
    auto& g = *workers_[w].gradient;
    // After the ranks' sum, the features any rank touched: those with a count, w's own.
    if (ranks)
      g.CollectTouched([&](uint32_t j) { return owners_.Of(j) == w; }, w == 0 && c.params.bias);
    // Nothing else writes these coordinates in this phase: plain relaxed stores suffice.
    g.template ApplyAndClear<Rule, StoreWrite>(c.params, static_cast<uint32_t>(size), rc);
  }

  void AddLoss(double& sum, const SyncSplit& split, uint64_t s) const {
    const uint64_t size = split.Offset(s, split.workers());
    for (uint64_t i = 0; i < size; ++i) sum += loss_[i];  // batch order
  }

 private:
  struct alignas(kCacheLine) Worker {
    std::vector<uint32_t> order_scratch;
    std::optional<GradientSum<Head::kOutputs>> gradient;
  };

  int outputs_;
  AlignedArray<float> sum_;
  AlignedArray<uint32_t> count_;
  FeatureOwners owners_;
  std::vector<Worker> workers_;
  std::vector<uint32_t> rows_;        // the current minibatch, batch order
  std::vector<float> d_;              // its derivatives, outputs per sample
  std::vector<double> loss_;          // its losses
  std::vector<double> ranks_buffer_;  // --ranks-scheme sync: the step's sums and counts
};

}  // namespace

std::unique_ptr<LinearRunner> MakeMinibatchRunner(const TrainConfig& config,
                                                  const RunnerShape& shape) {
  return WithHead(config.model, [&]<class Head>(Head) {
    return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<LinearRunner> {
      return std::make_unique<SyncRunner<LinearParams, LinearSyncLocal<Head, Rule>>>(
          LinearSyncLocal<Head, Rule>(shape, config.batch));
    });
  });
}

}  // namespace parsgd
