// Model averaging (the average scheme): data-parallel training inside one machine, as
// DimmWitted's per-core replicas. Worker w trains its own replica on its own shard, in minibatches of
// --batch samples; every --period minibatches (and at the end of every epoch) the replicas are
// replaced by their average (centralised: one average written back to all). --average-state
// averages the optimiser state too; without it each replica keeps its own.
//
// Between two averages a replica changes only at the features its samples touched, and all
// replicas are equal after an average, so averaging the union of the touched features (plus the
// bias) is exact and costs O(touched), not O(model): a short period stays cheap on sparse data.
// Sums over replicas are taken in replica order: the result does not depend on timing.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "epoch_runner.hpp"
#include "gradient_sum.hpp"
#include "replica_state.hpp"
#include "row_prefetch.hpp"

namespace parsgd {
namespace {


template <class Head, class Rule>
class AverageRunner final : public EpochRunner {
 public:
  AverageRunner(const RunnerShape& shape, int period, bool average_state)
      : features_(shape.features),
        outputs_(shape.outputs),
        size_((shape.features + 1) * shape.outputs),
        period_(period),
        average_state_(average_state),
        stamp_(AlignedArray<uint32_t>::Zeroed(shape.features)),
        owners_(shape.features, shape.workers),
        replicas_(shape.workers) {}

  EpochTotals Run(const EpochContext& c) override {
    const int workers = c.workers;
    c.executor->RunWorkers(workers, [&](int w) { Prepare(c, w); });
    uint64_t minibatches = 0;
    for (const Replica& r : replicas_) {
      minibatches = std::max<uint64_t>(minibatches, (r.shard.size() + c.batch - 1) / c.batch);
    }
    const uint64_t period = period_ > 0 ? static_cast<uint64_t>(period_) : minibatches;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    for (uint64_t m = 0; m < minibatches && !stop.load(std::memory_order_relaxed); m += period) {
      c.executor->RunWorkers(workers, [&](int w) { Train(c, w, m, m + period); });
      ++round_;
      c.executor->RunWorkers(workers, [&](int w) { Average(w); });
    }
    // All replicas now hold the average: it becomes the trainer's model (and state, for the record).
    const ParamArrays& out = c.params.arrays;
    const Replica& first = replicas_[0];
    std::memcpy(out.weights, first.weights.data(), size_ * sizeof(float));
    if (out.state0) std::memcpy(out.state0, first.state0.data(), size_ * sizeof(float));
    if (out.state1) std::memcpy(out.state1, first.state1.data(), size_ * sizeof(float));
    EpochTotals totals;
    for (const Replica& r : replicas_) {  // replica order
      totals.loss_sum += r.loss;
      totals.updates += r.done;
    }
    return totals;
  }

  // The replicas' own state between epochs (replica_state.hpp).
  void Save(TrainingState& s) const override {
    for (std::size_t w = 0; w < replicas_.size(); ++w) {
      const Replica& r = replicas_[w];
      if (r.ready) SaveReplica(s, w, r.steps, r.state0, r.state1, !average_state_);
    }
  }
  void Load(const TrainingState& s) override {
    for (std::size_t w = 0; w < replicas_.size(); ++w) {
      Replica& r = replicas_[w];
      r.ready = false;  // remade from the trainer's restored parameters at the next epoch
      LoadReplica(s, w, size_, r.steps, r.state0, r.state1);
    }
  }

 private:
  struct alignas(kCacheLine) Replica {
    AlignedArray<float> weights, state0, state1;
    AlignedArray<float> sum;
    AlignedArray<uint32_t> count;
    std::optional<GradientSum<Head::kOutputs>> gradient;
    std::vector<uint8_t> seen;       // features touched since the last average
    std::vector<uint32_t> touched;   // the same, as a list
    std::vector<uint32_t> order_scratch;
    std::span<const uint32_t> shard;
    std::vector<float> z;
    uint64_t steps = 0;              // optimiser steps of this replica, over the whole run
    double loss = 0;
    uint64_t done = 0;
    bool ready = false;
  };

  ParamArrays Arrays(Replica& r) {
    return {r.weights.data(), r.state0.empty() ? nullptr : r.state0.data(),
            r.state1.empty() ? nullptr : r.state1.data()};
  }

  // Worker w's replica: made from the trainer's parameters on first use; its shard for this epoch.
  void Prepare(const EpochContext& c, int w) {
    Replica& r = replicas_[w];
    if (!r.ready) {
      const ParamArrays& in = c.params.arrays;
      r.weights = Copy(in.weights);
      // A replica restored from a checkpoint (Load) keeps its own optimiser state.
      if (in.state0 && r.state0.empty()) r.state0 = Copy(in.state0);
      if (in.state1 && r.state1.empty()) r.state1 = Copy(in.state1);
      r.sum = AlignedArray<float>::Zeroed(size_);
      r.count = AlignedArray<uint32_t>::Zeroed(features_);
      r.gradient.emplace(r.sum.data(), r.count.data(), features_, outputs_);
      r.seen.assign(features_, 0);
      r.z.resize(outputs_);
      r.ready = true;
    }
    r.shard = c.order->Indices(c.epoch, w, r.order_scratch);
    r.loss = 0;
    r.done = 0;
  }

  AlignedArray<float> Copy(const float* from) {
    AlignedArray<float> to(size_);
    std::memcpy(to.data(), from, size_ * sizeof(float));
    return to;
  }

  void MarkTouched(Replica& r, uint32_t j) {
    if (!r.seen[j]) {
      r.seen[j] = 1;
      r.touched.push_back(j);
    }
  }

  // Worker w trains its replica on its minibatches [m_begin, m_end).
  void Train(const EpochContext& c, int w, uint64_t m_begin, uint64_t m_end) {
    Replica& r = replicas_[w];
    for (uint32_t j : r.touched) r.seen[j] = 0;  // the previous average covered them
    r.touched.clear();
    const uint64_t begin = std::min<uint64_t>(m_begin * c.batch, r.shard.size());
    const uint64_t end = std::min<uint64_t>(m_end * c.batch, r.shard.size());
    const LinearParams p{Arrays(r), c.params.features, c.params.outputs, c.params.rates};
    const double rows = static_cast<double>(c.data->rows());
    const std::atomic<bool>& stop = c.executor->stop_flag();  // checked per block or minibatch
    auto context = [&](uint64_t i) {  // this worker's progress, scaled by the worker count
      const double samples = static_cast<double>(i) * c.workers;
      return MakeRuleContext(c.optimizer, StepAt(c, samples),
                             c.batch == 1 ? c.epoch * rows + samples + 1 : double(r.steps + 1));
    };
    if (c.batch == 1) {
      // The step size changes at the same sample positions as in the asynchronous schemes.
      SequentialScheme scheme;
      RuleContext rc = context(begin - begin % kStepBlock);
      for (uint64_t i = begin; i < end; ++i) {
        if (i % kStepBlock == 0) {
          if (stop.load(std::memory_order_relaxed)) break;
          rc = context(i);
        }
        PrefetchAhead(*c.data, c.targets, r.shard, i);
        const SparseRow x = c.data->row(r.shard[i]);
        r.loss += LinearSgdStep<Head, Rule>(scheme, p, x, c.targets[r.shard[i]], rc, r.z.data());
        for (uint32_t e = 0; e < x.nnz; ++e) MarkTouched(r, x.index[e]);
        ++r.steps;
      }
    } else {
      for (uint64_t b = begin; b < end && !stop.load(std::memory_order_relaxed); b += c.batch) {
        const uint64_t b_end = std::min<uint64_t>(b + c.batch, end);
        const RuleContext rc = context(b);
        for (uint64_t i = b; i < b_end; ++i) {
          PrefetchAhead(*c.data, c.targets, r.shard, i);
          const SparseRow x = c.data->row(r.shard[i]);
          LinearScores<Head::kOutputs>(p, x, r.z.data());
          r.loss += Head::LossAndGradient(r.z.data(), outputs_, c.targets[r.shard[i]]);
          r.gradient->Add(x, r.z.data(), p.rates, [](uint32_t) { return true; });
          r.gradient->AddBias(r.z.data());
        }
        for (uint32_t j : r.gradient->touched()) MarkTouched(r, j);
        r.gradient->template ApplyAndClear<Rule, StoreWrite>(p, static_cast<uint32_t>(b_end - b), rc);
        ++r.steps;
      }
    }
    r.done += end - begin;
  }

  // Worker w averages the touched features it owns (worker 0 also the bias) over all replicas.
  void Average(int w) {
    for (const Replica& r : replicas_) {
      for (uint32_t j : r.touched) {
        if (owners_.Of(j) != w || stamp_[j] == round_) continue;
        stamp_[j] = round_;
        AverageRange(static_cast<uint64_t>(j) * outputs_, outputs_);
      }
    }
    if (w == 0) AverageRange(features_ * outputs_, outputs_);
  }

  void AverageRange(uint64_t at, int n) {
    AverageArray(&Replica::weights, at, n);
    if (!average_state_) return;
    if (!replicas_[0].state0.empty()) AverageArray(&Replica::state0, at, n);
    if (!replicas_[0].state1.empty()) AverageArray(&Replica::state1, at, n);
  }

  void AverageArray(AlignedArray<float> Replica::*array, uint64_t at, int n) {
    const float inv = 1.f / static_cast<float>(replicas_.size());
    for (int k = 0; k < n; ++k) {
      float sum = 0;
      for (Replica& r : replicas_) sum += (r.*array)[at + k];
      const float mean = sum * inv;
      for (Replica& r : replicas_) (r.*array)[at + k] = mean;
    }
  }

  uint64_t features_;
  int outputs_;
  uint64_t size_;
  int period_;
  bool average_state_;
  AlignedArray<uint32_t> stamp_;  // per feature: the last averaging round that covered it
  FeatureOwners owners_;
  uint32_t round_ = 0;
  std::vector<Replica> replicas_;
};

}  // namespace

std::unique_ptr<EpochRunner> MakeAverageRunner(const TrainConfig& config, const RunnerShape& shape) {
  return WithHead(config.model, [&]<class Head>(Head) {
    return WithRule(config.optimizer.kind, [&]<class Rule>(Rule) -> std::unique_ptr<EpochRunner> {
      return std::make_unique<AverageRunner<Head, Rule>>(shape, config.period, config.average_state);
    });
  });
}

}  // namespace parsgd
