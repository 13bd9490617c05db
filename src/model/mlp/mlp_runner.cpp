#include "mlp_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "apply_gradient.hpp"
#include "model/mlp/partition/partitions.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/error.hpp"
#include "scheme/async_runner.hpp"
#include "scheme/replica_runner.hpp"
#include "scheme/sync_runner.hpp"

namespace parsgd {
namespace {

Error NotForMlp(SchemeKind scheme) {
  return Error(
      fmt::format("scheme {} for an mlp (resolved and validated before)", SchemeName(scheme)));
}

// One worker's own buffers and engine.
struct alignas(kCacheLine) MlpWorker {
  std::unique_ptr<MlpEngine> engine;
  std::vector<float> x;
  std::vector<int> labels;
  std::vector<float> weights;  // the minibatch's row weights, where the rows have weights
  AlignedArray<float> grad;
  std::vector<uint32_t> order_scratch;
  std::span<const uint32_t> shard;
  double loss = 0;
  uint64_t done = 0;
};

// The workers' buffers and engines, and what every dense scheme does with them.
class MlpWorkers {
 protected:
  MlpWorkers(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : workers_(workers), inputs_(sizes.front()) {
    const uint64_t size = ParamCount(LayoutMlp(sizes));
    for (MlpWorker& w : workers_) {
      w.engine = MakeMlpEngine(config.mlp_backend, sizes, batch, 1);
      w.x.resize(static_cast<std::size_t>(batch) * inputs_);
      w.labels.resize(batch);
      w.weights.resize(batch);
      w.grad = AlignedArray<float>(size);
    }
  }

  void Gather(const MlpContext& c, std::span<const uint32_t> rows, MlpWorker& w) {
    GatherDense(*c.data, rows, c.params.input_scale, inputs_, w.x.data());
    GatherLabels(rows, c.targets, c.weights, w.labels.data(), w.weights.data());
  }

  // Worker w's minibatch's loss and gradient on `params`, into w.grad; returns the summed loss.
  static double LossAndGradient(const MlpContext& c, MlpWorker& w, const float* params, int n) {
    return w.engine->LossAndGradient(params, w.x.data(), w.labels.data(),
                                     c.weights != nullptr ? w.weights.data() : nullptr, n,
                                     w.grad.data());
  }

  // The workers' losses and samples, summed in worker order.
  EpochTotals Totals() const {
    EpochTotals totals;
    for (const MlpWorker& w : workers_) {
      totals.loss_sum += w.loss;
      totals.updates += w.done;
    }
    return totals;
  }

  // The step size at `samples` done this epoch, and the optimiser step count t.
  static RuleContext RuleAt(const MlpContext& c, double samples, double t) {
    return MakeRuleContext(c.optimizer, StepAt(c.step, c.epoch, samples, c.data->rows()), t);
  }

  std::vector<MlpWorker> workers_;
  int inputs_;
};

// The MLP's half of the asynchronous schemes (scheme/async_runner.hpp): one minibatch step per
// block, under the scheme's write policy (scheme/write_policy.hpp). A minibatch writes every
// coordinate, so where the policy holds the whole model (locked's HoldAll) the worker computes on
// the parameters in place and writes them plainly; elsewhere, with other workers, it first copies
// them with relaxed atomic loads into a private snapshot, so that the compute library (oneDNN)
// never reads memory another thread writes, and writes through the policy.
template <class Rule, class Scheme>
class MlpAsyncLocal : MlpWorkers {
 public:
  using Context = MlpContext;
  static constexpr bool kHoldsAll = requires(Scheme & s) { s.HoldAll(); };

  MlpAsyncLocal(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : MlpWorkers(config, sizes, workers, batch) {
    if (!kHoldsAll && workers > 1) {
      for (MlpWorker& w : workers_) snapshots_.emplace_back(w.grad.size());
    }
  }

  std::span<const uint32_t> Shard(const Context& c, int w) {
    return c.order->Indices(c.epoch, w, workers_[w].order_scratch);
  }
  uint64_t Block(const Context& c) const { return c.batch; }
  double SamplesPerUpdate(const Context& c) const { return c.batch; }

  void Train(const Context& c, int index, std::span<const uint32_t> shard, uint64_t begin,
             uint64_t end, const RuleContext& rc, double& loss) {
    MlpWorker& w = workers_[index];
    const auto batch = shard.subspan(begin, end - begin);
    Gather(c, batch, w);
    // One worker: nobody else reads or writes the parameters, so the racy (hogwild) or exact
    // (atomic) discipline has nothing to guard. It computes on them in place and updates them with
    // plain vectorised arithmetic, as sequential does: the same values bit for bit, without the
    // snapshot and the scalar atomic passes (which cost 1.8x at one thread, bench/README.md).
    const bool alone = c.workers == 1;
    std::unique_lock<std::mutex> lock;
    if constexpr (kHoldsAll) lock = scheme_.HoldAll();
    const float* compute_on = c.params.arrays.weights;
    if (!kHoldsAll && !alone) {
      float* snapshot = snapshots_[index].data();
#pragma GCC unroll 16
      for (uint64_t i = 0; i < c.params.size; ++i)
        snapshot[i] = LoadRelaxed(c.params.arrays.weights[i]);
      compute_on = snapshot;
    }
    loss += LossAndGradient(c, w, compute_on, static_cast<int>(batch.size()));
    if (alone || kHoldsAll) {
      ApplyGradient<Rule, PlainWrite>(c.params, c.params.arrays, w.grad.data(), 0, c.params.size,
                                      rc);
    } else {
      ApplyGradient<Rule, typename Scheme::Write>(c.params, c.params.arrays, w.grad.data(), 0,
                                                  c.params.size, rc);
    }
  }

 private:
  std::vector<AlignedArray<float>> snapshots_;
  Scheme scheme_;
};
static_assert(AsyncLocal<MlpAsyncLocal<SgdRule, HogwildScheme>>);
static_assert(AsyncLocal<MlpAsyncLocal<AdamRule, LockedScheme>>);

template <class Rule, class Scheme>
std::unique_ptr<MlpRunner> MakeAsync(const TrainConfig& config, const std::vector<int>& sizes,
                                     int workers, int batch) {
  return std::make_unique<AsyncRunner<MlpParams, MlpAsyncLocal<Rule, Scheme>>>(
      workers, config, sizes, workers, batch);
}

// The asynchronous schemes the MLP runs: those whose row says so (striped locks the coordinates
// a sample touches; a minibatch touches all of them).
inline constexpr auto kMlpAsync = []<class P>(P*) { return TrainsModel(SchemeOf(P::kKind), ModelKind::kMlp); };

// The MLP's half of the sync scheme (scheme/sync_runner.hpp). Phase A: each worker's part, its mean
// gradient computed on the shared parameters. Phase B: the owners of each coordinate range combine
// the parts' mean gradients, weighted by their share of the step's samples, in worker order (then
// over the ranks), and apply the rule.
template <class Rule>
class MlpSyncLocal : MlpWorkers {
 public:
  using Context = MlpContext;

  MlpSyncLocal(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : MlpWorkers(config, sizes, workers, (batch + workers - 1) / workers),
        combined_(ParamCount(LayoutMlp(sizes))),
        owned_(workers) {}

  std::span<const uint32_t> Shard(const Context& c, int w) {
    return c.order->Indices(c.epoch, w, workers_[w].order_scratch);
  }

  void Compute(const Context& c, const SyncSplit& split, uint64_t s, int w) {
    MlpWorker& d = workers_[w];
    const auto part = split.Part(s, w);
    d.loss = 0;
    if (part.empty()) return;
    Gather(c, part, d);
    d.loss = LossAndGradient(c, d, c.params.arrays.weights, static_cast<int>(part.size()));
  }

  // `size`: the step's samples over every rank, so that the ranks' sums add up to the mean.
  void Sum(const Context& c, const SyncSplit& split, uint64_t s, int w, uint64_t size) {
    const int workers = split.workers();
    const uint64_t begin = SplitAt(c.params.size, w, workers),
                   end = SplitAt(c.params.size, w + 1, workers);
    float* g = combined_.data();
    for (uint64_t i = begin; i < end; ++i) g[i] = 0.f;
    for (int v = 0; v < workers; ++v) {
      const uint64_t count = split.Part(s, v).size();
      if (count == 0) continue;
      const float weight = static_cast<float>(count) / static_cast<float>(size);
      const float* part = workers_[v].grad.data();
      for (uint64_t i = begin; i < end; ++i) g[i] += weight * part[i];
    }
    owned_[w] = {begin, end};
  }

  void SumRanks(Communicator& ranks) { ranks.SumAll(combined_.span()); }

  void ApplySum(const Context& c, int w, uint64_t, const RuleContext& rc, bool) {
    ApplyGradient<Rule, PlainWrite>(c.params, c.params.arrays, combined_.data(), owned_[w].first,
                                    owned_[w].second, rc);
  }

  void AddLoss(double& sum, const SyncSplit& split, uint64_t) const {
    for (int w = 0; w < split.workers(); ++w) sum += workers_[w].loss;  // worker order
  }

 private:
  AlignedArray<float> combined_;                      // the step's gradient
  std::vector<std::pair<uint64_t, uint64_t>> owned_;  // the coordinates each worker sums
};
static_assert(SyncLocal<MlpSyncLocal<NesterovRule>>);

// The MLP's half of the replica schemes (average, gossip; scheme/replica_runner.hpp): each
// minibatch's gradient applied to the worker's replica; every coordinate changes, so ForChanged is
// the worker's equal share of them.
template <class Rule>
class MlpReplicaLocal : MlpWorkers {
 public:
  using Context = MlpContext;

  MlpReplicaLocal(const TrainConfig& config, const std::vector<int>& sizes, int workers, int batch)
      : MlpWorkers(config, sizes, workers, batch), size_(ParamCount(LayoutMlp(sizes))) {}

  void Begin(const Context& c, int w) {
    workers_[w].shard = c.order->Indices(c.epoch, w, workers_[w].order_scratch);
    workers_[w].loss = 0;
    workers_[w].done = 0;
  }

  uint64_t Minibatches(int w, int batch) const {
    return (workers_[w].shard.size() + batch - 1) / batch;
  }

  void Train(const Context& c, int index, const ParamArrays& p, uint64_t& steps, uint64_t m_begin,
             uint64_t m_end) {
    MlpWorker& w = workers_[index];
    const uint64_t end = std::min<uint64_t>(m_end * c.batch, w.shard.size());
    const std::atomic<bool>& stop = c.executor->stop_flag();
    for (uint64_t b = std::min<uint64_t>(m_begin * c.batch, end);
         b < end && !stop.load(std::memory_order_relaxed); b += c.batch) {
      const auto batch = w.shard.subspan(b, std::min<uint64_t>(c.batch, end - b));
      Gather(c, batch, w);
      const RuleContext rc =
          RuleAt(c, static_cast<double>(b) * c.workers, static_cast<double>(++steps));
      w.loss += LossAndGradient(c, w, p.weights, static_cast<int>(batch.size()));
      ApplyGradient<Rule, PlainWrite>(c.params, p, w.grad.data(), 0, c.params.size, rc);
      w.done += batch.size();
    }
  }

  void BeginPeriod(const Context&, uint64_t, uint64_t) {}
  void EndPeriod() {}

  template <class Fn>
  void ForChanged(int w, int workers, Fn&& fn) const {
    fn(SplitAt(size_, w, workers), SplitAt(size_, w + 1, workers));
  }

  using MlpWorkers::Totals;

 private:
  uint64_t size_;
};
static_assert(ReplicaLocal<MlpReplicaLocal<AdamRule>>);
static_assert(ReplicaCombine<AverageCombine, MlpReplicaLocal<SgdRule>>);
static_assert(ReplicaCombine<GossipCombine, MlpReplicaLocal<SgdRule>>);
static_assert(ReplicaCombine<ElasticCombine, MlpReplicaLocal<SgdRule>>);

template <class Rule>
std::unique_ptr<MlpRunner> ForScheme(const TrainConfig& config, const std::vector<int>& sizes,
                                     int workers, int batch) {
  switch (SchemeOf(config.scheme).family) {
    case SchemeFamily::kAsync:
      return WithAsyncPolicy(
          config.scheme, kMlpAsync,
          [&]<class Policy>(PolicyTag<Policy>) {
            return MakeAsync<Rule, Policy>(config, sizes, workers, batch);
          },
          [&]() -> std::unique_ptr<MlpRunner> { throw NotForMlp(config.scheme); });
    case SchemeFamily::kSync:
      return std::make_unique<SyncRunner<MlpParams, MlpSyncLocal<Rule>>>(
          MlpSyncLocal<Rule>(config, sizes, workers, batch));
    case SchemeFamily::kReplica:
      return MakeReplicaRunner<MlpRunner>(config,
                                          MlpReplicaLocal<Rule>(config, sizes, workers, batch),
                                          workers, ParamCount(LayoutMlp(sizes)));
    case SchemeFamily::kPartition:
      return MakePartitionRunner(config, sizes, workers, batch);
    case SchemeFamily::kAuto:
      break;
  }
  throw NotForMlp(config.scheme);
}

}  // namespace

std::unique_ptr<MlpRunner> MakeMlpRunner(const TrainConfig& config, const std::vector<int>& sizes,
                                         int workers, int batch) {
  return WithRule(config.optimizer.kind,
                  [&]<class Rule>(Rule) { return ForScheme<Rule>(config, sizes, workers, batch); });
}

}  // namespace parsgd
