// Synchronous minibatch SGD for the linear models (the sync scheme, and the sequential scheme with
// --batch > 1): the scheme is scheme/sync_runner.hpp; here the linear models' phases.
#include <algorithm>
#include <optional>
#include <vector>

#include "gradient_sum.hpp"
#include "linear_runner.hpp"
#include "parsgd/data/row_prefetch.hpp"
#include "scheme/sync_runner.hpp"

namespace parsgd {
namespace {

// The linear models' half of the sync scheme (scheme/sync_runner.hpp). Phase A: scores, losses and
// loss derivatives of the worker's samples, at their positions in the step's minibatch, and (with
// more than one worker) the samples' nonzeros routed to the owners of their features. Phase B: the
// owners of each feature block sum the minibatch's gradients for their features in batch order and
// apply the rule. Routed, an owner reads only its own nonzeros: phase B costs O(nnz / workers) per
// worker, not a scan of the whole minibatch each (which made it as long as one worker's step at any
// thread count).
template <class Head, class Rule>
class LinearSyncLocal {
 public:
  using Context = LinearContext;

  LinearSyncLocal(const RunnerShape& shape, int batch, Head head)
      : head_(head),
        outputs_(shape.outputs),
        sum_(AlignedArray<float>::Zeroed((shape.features + 1) * shape.outputs)),
        count_(AlignedArray<uint32_t>::Zeroed(shape.features)),
        owners_(shape.features, shape.workers),
        workers_(shape.workers),
        rows_(batch),
        d_(static_cast<std::size_t>(batch) * shape.outputs),
        loss_(batch) {
    for (Worker& w : workers_) {
      w.gradient.emplace(sum_.data(), count_.data(), shape.features, shape.outputs);
      if (shape.workers > 1) w.routed.resize(shape.workers);
    }
  }
  LinearSyncLocal(LinearSyncLocal&&) = default;

  std::span<const uint32_t> Shard(const Context& c, int w) {
    return c.order->Indices(c.epoch, w, workers_[w].order_scratch);
  }

  void Compute(const Context& c, const SyncSplit& split, uint64_t s, int w) {
    const std::span<const uint32_t> part = split.Part(s, w);
    const uint64_t begin = split.Offset(s, w);
    std::copy(part.begin(), part.end(), rows_.begin() + begin);
    for (std::vector<Routed>& to : workers_[w].routed) to.clear();  // the owners read them
    for (uint64_t i = 0; i < part.size(); ++i) {
      PrefetchAhead(*c.data, c.targets, part, i);
      const uint32_t r = part[i];
      float* d = d_.data() + (begin + i) * outputs_;
      const SparseRow x = c.data->row(r);
      LinearScores<Head::kOutputs>(c.params, x, d);
      loss_[begin + i] = WeightedLossAndGradient(head_, d, outputs_, c.targets[r], RowWeight(c, r));
      if (workers_.size() > 1) Route(x, c.params.rates, static_cast<uint32_t>(begin + i), w);
    }
  }

  void Sum(const Context& c, const SyncSplit& split, uint64_t s, int w, uint64_t) {
    auto& g = *workers_[w].gradient;
    const uint64_t size = split.Offset(s, split.workers());
    if (workers_.size() == 1) {
      for (uint64_t i = 0; i < size; ++i) {
        g.Add(c.data->row(rows_[i]), d_.data() + i * outputs_, c.params.rates,
              [](uint32_t) { return true; });
      }
    } else {
      // The parts in worker order are the minibatch in batch order: each feature's sum is taken in
      // the order of the scan above, to the bit.
      for (Worker& from : workers_) {
        for (const Routed& n : from.routed[w]) g.AddInput(n.j, d_.data() + n.i * outputs_, n.input);
      }
    }
    if (w == 0 && c.params.bias) {
      for (uint64_t i = 0; i < size; ++i) g.AddBias(d_.data() + i * outputs_);
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
  // One nonzero of the minibatch on its way to the owner of feature j: the sample's position in
  // the minibatch and the nonzero's step input (GradientSum::StepInput).
  struct Routed {
    uint32_t j;
    uint32_t i;
    float input;
  };
  struct alignas(kCacheLine) Worker {
    std::vector<uint32_t> order_scratch;
    std::optional<GradientSum<Head::kOutputs>> gradient;
    std::vector<std::vector<Routed>> routed;  // [owner]: this worker's part's nonzeros, in order
  };

  void Route(const SparseRow& x, const FeatureRate* rates, uint32_t i, int w) {
    std::vector<std::vector<Routed>>& to = workers_[w].routed;
    for (uint32_t e = 0; e < x.nnz; ++e) {
      const uint32_t j = x.index[e];
      const float input = GradientSum<Head::kOutputs>::StepInput(x.value[e], rates, j);
      to[owners_.Of(j)].push_back({j, i, input});
    }
  }

  Head head_;
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
static_assert(SyncLocal<LinearSyncLocal<BinaryHead<ScoreLoss>, SgdRule>>);
static_assert(SyncLocal<LinearSyncLocal<SoftmaxHead, AdamRule>>);

}  // namespace

std::unique_ptr<LinearRunner> MakeMinibatchRunner(const TrainConfig& config,
                                                  const RunnerShape& shape) {
  return WithHead(
      LossOf(config.model), config.loss_epsilon, shape.outputs, [&]<class Head>(Head head) {
        return WithRule(
            config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<LinearRunner> {
              return std::make_unique<SyncRunner<LinearParams, LinearSyncLocal<Head, Rule>>>(
                  LinearSyncLocal<Head, Rule>(shape, config.batch, head));
            });
      });
}

}  // namespace parsgd
