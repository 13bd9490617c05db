// The linear models' half of the replica schemes (average, gossip; scheme/replica_runner.hpp): how
// a worker trains its replica on its minibatches, and which coordinates changed. With --batch 1 a
// replica takes per-sample steps (per-core local SGD, as DimmWitted's replicas), the step size
// changing at the same sample positions as in the asynchronous schemes; with larger batches one
// step per minibatch of summed gradients. A replica changes only at the features its samples
// touched (and the bias): ForChanged lists those, each feature once, dealt to the workers by
// FeatureOwners.
//
// --asgd: the averaged model is the mean over time of the replicas' mean model, which is the mean
// of the replicas' means over time (both are means). Each replica keeps its own lazy means
// (parsgd/model/linear/average.hpp) on its own clock (its progress times the workers, as the
// asynchronous schemes'); a combining step rewrites the coordinates that changed in any replica,
// so before it every replica brings those features' means up to its clock; at the end of a run of
// periods every replica brings all of them up, and the trainer's means become the replicas' mean,
// which every replica's goes on from at the next epoch (a mean of means stays the mean over time).
#include <algorithm>
#include <optional>
#include <vector>

#include "gradient_sum.hpp"
#include "linear_runner.hpp"
#include "parsgd/data/row_prefetch.hpp"
#include "parsgd/model/linear/average.hpp"
#include "scheme/replica_runner.hpp"

namespace parsgd {
namespace {

// A period's combining step covers the whole model when the period's nonzeros, over all workers,
// reach the features (then no worker marks what it touched: marking costs ~15% of a per-sample
// step), or when the features they touched reach 1/kTouchedShare of them: one vectorised pass over
// the model then costs no more than visiting the touched features one by one (bench/README.md,
// "The replica schemes on sparse data"; a feature is `outputs` coordinates either way).
bool CombinesWholeModel(double nonzeros, uint64_t features) {
  return nonzeros >= static_cast<double>(features);
}
constexpr uint64_t kTouchedShare = 8;

template <class Head, class Rule>
class LinearReplicaLocal {
 public:
  using Context = LinearContext;

  LinearReplicaLocal(const RunnerShape& shape, Head head)
      : head_(head),
        features_(shape.features),
        outputs_(shape.outputs),
        stamp_(AlignedArray<uint32_t>::Zeroed(shape.features)),
        owners_(shape.features, shape.workers),
        workers_(shape.workers) {}

  void Begin(const Context& c, int w) {
    Worker& r = workers_[w];
    if (!r.ready) {
      const uint64_t size = (features_ + 1) * outputs_;
      r.sum = AlignedArray<float>::Zeroed(size);
      r.count = AlignedArray<uint32_t>::Zeroed(features_);
      r.gradient.emplace(r.sum.data(), r.count.data(), features_, outputs_);
      r.seen.assign(features_, 0);
      r.touched.resize(workers_.size());
      r.z.resize(outputs_);
      r.ready = true;
    }
    r.shard = c.order->Indices(c.epoch, w, r.order_scratch);
    r.loss = 0;
    r.done = 0;
    r.at = 0;
    if (const LazyAverage* run = c.params.average; run != nullptr) {
      // The epoch starts from the trainer's means (what a checkpoint holds; across ranks, the
      // ranks' mean) and clocks, the replicas' the same since the last epoch's end.
      const uint64_t size = (features_ + 1) * outputs_;
      if (r.mean.empty()) {
        r.mean = AlignedArray<float>(size);
        r.since = AlignedArray<uint64_t>(features_ + 1);
        r.average = {r.mean.data(), r.since.data(), run->start};
      }
      std::copy_n(run->mean, size, r.mean.data());
      std::copy_n(run->since, features_ + 1, r.since.data());
    }
  }

  uint64_t Minibatches(int w, int batch) const {
    return (workers_[w].shard.size() + batch - 1) / batch;
  }

  // Before the period of minibatches [m_begin, m_end): whether its combining step covers the whole
  // model (then no worker needs to mark what it touched), from the mean nonzeros per row (with the
  // bias as one more feature).
  void BeginPeriod(const Context& c, uint64_t m_begin, uint64_t m_end) {
    run_average_ = c.params.average;
    rows_ = c.data->rows();
    epoch_ = c.epoch;
    uint64_t samples = 0;
    for (const Worker& r : workers_) {
      const uint64_t n = r.shard.size();
      samples += std::min<uint64_t>(m_end * c.batch, n) - std::min<uint64_t>(m_begin * c.batch, n);
    }
    const double per_row = static_cast<double>(c.data->nnz()) / static_cast<double>(c.data->rows());
    whole_ = CombinesWholeModel(per_row * static_cast<double>(samples), features_ + 1);
  }

  // Worker w trains `replica`, its own (no other thread reads or writes it while it trains: plain
  // loads and stores), on its minibatches [m_begin, m_end).
  void Train(const Context& c, int w, const ParamArrays& replica, uint64_t& replica_steps,
             uint64_t m_begin, uint64_t m_end) {
    Worker& r = workers_[w];
    // The replica's step count, counted here and stored at the end: the replicas' counters share
    // cache lines, and a store a sample to one contended them.
    uint64_t steps = replica_steps;
    for (std::vector<uint32_t>& owned : r.touched) {
      for (uint32_t j : owned) r.seen[j] = 0;  // the previous combining step covered them
      owned.clear();
    }
    const bool mark = !whole_;  // whether the combining step needs to know what changed
    const uint64_t begin = std::min<uint64_t>(m_begin * c.batch, r.shard.size());
    const uint64_t end = std::min<uint64_t>(m_end * c.batch, r.shard.size());
    r.weights = replica.weights;
    const LinearParams p{replica,
                         c.params.features,
                         c.params.outputs,
                         c.params.rates,
                         c.params.bias,
                         c.params.l1_rates,
                         run_average_ != nullptr ? &r.average : nullptr,
                         c.params.isa};
    const double rows = static_cast<double>(c.data->rows());
    const std::atomic<bool>& stop = c.executor->stop_flag();  // checked per block or minibatch
    // A replica's steps an epoch: its shard's samples (about rows / workers), or minibatches.
    const double steps_an_epoch = rows / (static_cast<double>(c.workers) * c.batch);
    auto context = [&](uint64_t i) {  // this worker's progress, scaled by the worker count
      const double samples = static_cast<double>(i) * c.workers;
      RuleContext rc = MakeRuleContext(c.optimizer, StepAt(c, samples),
                                       c.batch == 1 ? c.epoch * rows + samples + 1
                                                    : double(steps + 1));
      rc.penalty = PenaltyClock(c, samples, steps_an_epoch);  // --l1: the steps before i
      rc.samples = Clock(i, w);                               // --asgd's
      return rc;
    };
    if (c.batch == 1) {
      SequentialScheme scheme;
      RuleContext rc = context(begin - begin % kStepBlock);
      float clock = rc.penalty + rc.eta * static_cast<float>(begin % kStepBlock);  // --l1's
      for (uint64_t i = begin; i < end; ++i) {
        if (i % kStepBlock == 0) {
          if (stop.load(std::memory_order_relaxed)) break;
          rc = context(i);
          clock = rc.penalty;
        }
        if (p.l1_rates != nullptr) {
          clock += rc.eta;
          rc.penalty = clock;
        }
        rc.samples = Clock(i, w);
        PrefetchAhead(*c.data, c.targets, r.shard, i);
        if constexpr (Head::kOutputs != 1) {
          if (i + 1 < end) {
            PrefetchWeightRows(*c.data, r.shard[i + 1], p.arrays.weights, p.features, p.outputs);
          }
        }
        const SparseRow x = c.data->row(r.shard[i]);
        r.loss += LinearSgdStep<Head, Rule>(head_, scheme, p, x, c.targets[r.shard[i]],
                                            RowWeight(c, r.shard[i]), rc, r.z.data());
        if (mark) {
          for (uint32_t e = 0; e < x.nnz; ++e) MarkTouched(r, x.index[e]);
        }
        ++steps;
      }
    } else {
      for (uint64_t b = begin; b < end && !stop.load(std::memory_order_relaxed); b += c.batch) {
        const uint64_t b_end = std::min<uint64_t>(b + c.batch, end);
        RuleContext rc = context(b);
        rc.penalty += rc.eta;  // this step's
        for (uint64_t i = b; i < b_end; ++i) {
          PrefetchAhead(*c.data, c.targets, r.shard, i);
          const SparseRow x = c.data->row(r.shard[i]);
          LinearScores<Head::kOutputs, PlainWrite>(p, x, r.z.data());
          r.loss += WeightedLossAndGradient(head_, r.z.data(), outputs_, c.targets[r.shard[i]],
                                            RowWeight(c, r.shard[i]));
          r.gradient->Add(x, r.z.data(), p.rates, [](uint32_t) { return true; });
          if (p.bias) r.gradient->AddBias(r.z.data());
        }
        if (mark) {
          for (uint32_t j : r.gradient->touched()) MarkTouched(r, j);
        }
        r.gradient->template ApplyAndClear<Rule, PlainWrite>(p, static_cast<uint32_t>(b_end - b),
                                                             rc);
        ++steps;
      }
    }
    r.done += end - begin;
    r.at = end;
    replica_steps = steps;
  }

  // After the period: a step planned sparse covers the whole model all the same when the replicas
  // touched more than 1/kTouchedShare of it.
  void EndPeriod() {
    ++round_;
    if (!whole_) {
      uint64_t touched = 0;
      for (const Worker& r : workers_) {
        for (const std::vector<uint32_t>& owned : r.touched) touched += owned.size();
      }
      whole_ = touched * kTouchedShare >= features_;
    }
    if (run_average_ != nullptr) CatchUpChanged();
  }

  // --asgd, after the run's last combining step (scheme/replica_runner.hpp): every replica's means
  // brought up to its clock, then the trainer's set to their mean, and its clock to the samples
  // every replica took (the learner's, which then has nothing to catch up).
  void FinishRun(const Context& c) {
    if (run_average_ == nullptr) return;
    const int workers = static_cast<int>(workers_.size());
    uint64_t done = 0;
    for (const Worker& r : workers_) done += r.done;
    const uint64_t now = epoch_ * rows_ + done;
    AverageClock clock;
    if (!ClockAt(*run_average_, now, clock)) return;  // averaging has not started
    c.executor->RunWorkers(workers, [&](int w) {
      Worker& r = workers_[w];
      // A replica that has not trained in this process (a resumed run stopped before its first
      // period) holds the trainer's means as they were.
      if (r.weights != nullptr)
        CatchUpAll(r.average, r.weights, features_, outputs_, Clock(r.at, w));
    });
    const uint64_t size = (features_ + 1) * outputs_;
    const float inverse = 1.f / static_cast<float>(workers);
    c.executor->RunWorkers(workers, [&](int w) {
      for (uint64_t i = SplitAt(size, w, workers); i < SplitAt(size, w + 1, workers); ++i) {
        float sum = 0;
        for (const Worker& r : workers_) sum += r.mean[i];  // replica order
        run_average_->mean[i] = sum * inverse;
      }
      for (uint64_t j = SplitAt(features_ + 1, w, workers);
           j < SplitAt(features_ + 1, w + 1, workers); ++j) {
        run_average_->since[j] = now;
      }
    });
  }

  // The touched features worker w owns, each once over all replicas (worker 0 also the bias), as
  // ranges of their `outputs` coordinates; or, for a period that covers the whole model
  // (BeginPeriod), worker w's equal share of all coordinates: a coordinate no replica moved is
  // equal in all of them, which the combining steps leave as it is.
  template <class Fn>
  void ForChanged(int w, int workers, Fn&& fn) const {
    if (whole_) {
      const uint64_t n = (features_ + 1) * outputs_;
      fn(SplitAt(n, w, workers), SplitAt(n, w + 1, workers));
      return;
    }
    for (const Worker& r : workers_) {
      for (uint32_t j : r.touched[w]) {
        if (stamp_[j] == round_) continue;
        stamp_[j] = round_;
        const uint64_t at = static_cast<uint64_t>(j) * outputs_;
        fn(at, at + outputs_);
      }
    }
    if (w == 0) fn(features_ * outputs_, (features_ + 1) * outputs_);
  }

  EpochTotals Totals() const {
    EpochTotals totals;
    for (const Worker& r : workers_) {  // worker order
      totals.loss_sum += r.loss;
      totals.updates += r.done;
    }
    return totals;
  }

 private:
  struct alignas(kCacheLine) Worker {
    AlignedArray<float> sum;
    AlignedArray<uint32_t> count;
    std::optional<GradientSum<Head::kOutputs>> gradient;
    std::vector<uint8_t> seen;  // features touched since the last combining step
    // The same as lists, one per owner (FeatureOwners), in the order first touched: an owner's
    // combining step reads only its own, O(touched / workers), not every list.
    std::vector<std::vector<uint32_t>> touched;
    std::vector<uint32_t> order_scratch;
    std::span<const uint32_t> shard;
    std::vector<float> z;
    double loss = 0;
    uint64_t done = 0;
    uint64_t at = 0;  // the shard's samples trained this epoch, the next one's index
    bool ready = false;
    // --asgd: the replica's weights (as the runner passes them) and its lazy means.
    float* weights = nullptr;
    AlignedArray<float> mean;
    AlignedArray<uint64_t> since;
    LazyAverage average{};
  };

  // --asgd's clock of worker w's i-th sample of the epoch: its progress times the workers, never
  // past the epoch's end (where the next epoch's clocks start).
  uint64_t Clock(uint64_t i, int w) const {
    return epoch_ * rows_ + std::min<uint64_t>(i * workers_.size() + w, rows_);
  }

  // Before a combining step: every replica's means of the features it will rewrite (those some
  // replica touched this period, and the biases; every feature when it covers the whole model)
  // brought up to the replica's clock.
  void CatchUpChanged() {
    AverageClock clock;
    for (std::size_t q = 0; q < workers_.size(); ++q) {
      Worker& replica = workers_[q];
      const uint64_t now = Clock(replica.at, static_cast<int>(q));
      if (!ClockAt(replica.average, now, clock)) continue;  // not started
      if (whole_) {
        CatchUpAll(replica.average, replica.weights, features_, outputs_, now);
        continue;
      }
      for (const Worker& r : workers_) {
        for (const std::vector<uint32_t>& owned : r.touched) {
          for (uint32_t j : owned) {
            CatchUp<StoreWrite>(replica.average, replica.weights, j, outputs_, clock);
          }
        }
      }
      CatchUp<StoreWrite>(replica.average, replica.weights, features_, outputs_, clock);
    }
  }

  void MarkTouched(Worker& r, uint32_t j) const {
    if (!r.seen[j]) {
      r.seen[j] = 1;
      r.touched[owners_.Of(j)].push_back(j);
    }
  }

  Head head_;
  uint64_t features_;
  int outputs_;
  // Per feature: the last period whose combining step covered it (written by its owner only).
  mutable AlignedArray<uint32_t> stamp_;
  FeatureOwners owners_;
  uint32_t round_ = 0;
  bool whole_ = false;  // this period's combining step covers the whole model
  const LazyAverage* run_average_ = nullptr;  // --asgd: the trainer's averaged model
  uint64_t rows_ = 0;
  uint64_t epoch_ = 0;
  std::vector<Worker> workers_;
};
static_assert(ReplicaLocal<LinearReplicaLocal<BinaryHead<ScoreLoss>, MomentumRule>>);
static_assert(ReplicaCombine<AverageCombine, LinearReplicaLocal<SoftmaxHead, SgdRule>>);
static_assert(ReplicaCombine<GossipCombine, LinearReplicaLocal<SoftmaxHead, SgdRule>>);
static_assert(ReplicaCombine<ElasticCombine, LinearReplicaLocal<SoftmaxHead, SgdRule>>);

}  // namespace

std::unique_ptr<LinearRunner> MakeLinearReplicaRunner(const TrainConfig& config,
                                                      const RunnerShape& shape) {
  return WithHead(LossOf(config.model), config.loss_epsilon, shape.outputs,
                  [&]<class Head>(Head head) {
                    return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) {
                      return MakeReplicaRunner<LinearRunner>(
                          config, LinearReplicaLocal<Head, Rule>(shape, head), shape.workers,
                          (shape.features + 1) * shape.outputs);
                    });
                  });
}

}  // namespace parsgd
