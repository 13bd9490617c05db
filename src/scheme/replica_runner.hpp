// Internal: the replica schemes (average, gossip), written once over the model. Worker w trains its
// own replica on its own shard, in minibatches of --batch samples (per-sample steps with --batch
// 1); every --period minibatches, and at the end of every epoch, the scheme's combining step runs,
// one worker per range of coordinates. The schemes differ only in that step:
//  - average (scheme/average.hpp): every replica replaced by the mean (centralised), or by an outer
//    optimiser's step from the mean (--outer-optimizer);
//  - gossip (scheme/gossip.hpp): every replica replaced by the mix of itself and its ring
//    neighbours (decentralised: no global average; the run's model is the replicas' mean).
//
// A model takes part through a "replica local" (the concept ReplicaLocal below;
// model/linear/replica_local.cpp, model/mlp/mlp_runner.cpp), the scheme through its combining step
// (ReplicaCombine).
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <memory>
#include <utility>

#include "average.hpp"
#include "elastic.hpp"
#include "gossip.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/exec/executor.hpp"
#include "parsgd/run/epoch_report.hpp"
#include "parsgd/run/training_state.hpp"
#include "replicas.hpp"

namespace parsgd {

// What the replica runner asks of a model's half.
template <class L>
concept ReplicaLocal = requires(L& local, const L& read, const typename L::Context& c, int w,
                                int batch, uint64_t m, const ParamArrays& replica,
                                uint64_t& steps, void (*fn)(uint64_t, uint64_t)) {
  // Worker w's shard for this epoch, its totals zeroed.
  local.Begin(c, w);
  // Worker w's minibatches this epoch.
  { read.Minibatches(w, batch) } -> std::convertible_to<uint64_t>;
  // Once before and once after the period of minibatches [m_begin, m_end).
  local.BeginPeriod(c, m, m);
  local.EndPeriod();
  // Worker w trains its replica on its minibatches [m_begin, m_end), counting its steps.
  local.Train(c, w, replica, steps, m, m);
  // fn(begin, end) over the coordinate ranges that changed in some replica this period and that
  // worker w combines (disjoint over w).
  read.ForChanged(w, batch, fn);
  // The losses and samples, summed in worker order.
  { read.Totals() } -> std::convertible_to<EpochTotals>;
};

// What the replica runner asks of a scheme's combining step, for the model's local L.
template <class C, class L>
concept ReplicaCombine = requires(C& combine, const C& read, Replicas& replicas,
                                  const Replicas& held, const L& local,
                                  const ParamArrays& trainer, int w, TrainingState& out,
                                  const TrainingState& in) {
  // Whether the replicas differ at an epoch's end (their weights are then part of the state).
  { C::kOwnWeights } -> std::convertible_to<bool>;
  // Before an epoch's training.
  combine.Start(trainer, w);
  // Worker w's share of the step, of `workers`.
  combine.Combine(replicas, local, w, w);
  // The epoch's model into the trainer's parameters.
  read.Finish(held, trainer);
  // Its own state between epochs.
  read.Save(out);
  combine.Load(in);
};

template <class Base, ReplicaLocal Local, ReplicaCombine<Local> Combine>
class ReplicaRunner final : public Base {
 public:
  using Context = typename Local::Context;

  ReplicaRunner(Local&& local, Combine&& combine, int workers, uint64_t size, int period,
                bool average_state)
      : local_(std::move(local)),
        combine_(std::move(combine)),
        replicas_(workers, size),
        period_(period),
        average_state_(average_state) {}

  // Runs the minibatches [M p / parts, M (p + 1) / parts) of part p of the epoch (M: the most any
  // worker has), then writes the combined model to the trainer's parameters, as at an epoch's end.
  EpochTotals Run(const Context& c) override {
    const int workers = c.workers;
    const ParamArrays trainer = c.params.arrays;
    if (c.part == 0) {
      c.executor->RunWorkers(workers, [&](int w) {
        if (!replicas_.ready(w)) replicas_.MakeFrom(w, trainer);
        local_.Begin(c, w);
      });
      minibatches_ = 0;
      for (int w = 0; w < workers; ++w)
        minibatches_ = std::max(minibatches_, local_.Minibatches(w, c.batch));
      reported_ = {};
    }
    combine_.Start(trainer, workers);
    const uint64_t period = period_ > 0 ? static_cast<uint64_t>(period_) : minibatches_;
    const uint64_t first = PartStart(minibatches_, c.part, c.parts),
                   last = PartStart(minibatches_, c.part + 1, c.parts);
    const std::atomic<bool>& stop = c.executor->stop_flag();
    for (uint64_t m = first; m < last && !stop.load(std::memory_order_relaxed); m += period) {
      const uint64_t end = std::min(m + period, last);
      local_.BeginPeriod(c, m, end);
      c.executor->RunWorkers(workers, [&](int w) {
        local_.Train(c, w, replicas_.Arrays(w), replicas_.steps(w), m, end);
      });
      local_.EndPeriod();
      c.executor->RunWorkers(workers,
                             [&](int w) { combine_.Combine(replicas_, local_, w, workers); });
    }
    combine_.Finish(replicas_, trainer);
    if constexpr (requires { local_.FinishRun(c); }) local_.FinishRun(c);
    // This part's losses and samples: the local's totals count from the epoch's start.
    const EpochTotals all = local_.Totals();
    const EpochTotals part{all.loss_sum - reported_.loss_sum, all.updates - reported_.updates};
    reported_ = all;
    return part;
  }

  // Across ranks, between two parts: every replica continues from the ranks' combined model (and
  // from their combined optimiser state where the ranks combined it), so that the rank's replicas
  // stay its model's copies.
  void TakeParams(const typename Base::Parameters& params, bool state) override {
    for (int w = 0; w < replicas_.count(); ++w) {
      if (replicas_.ready(w)) replicas_.TakeFrom(w, params.arrays, state);
    }
    if constexpr (requires { combine_.Taken(params.arrays); }) combine_.Taken(params.arrays);
  }

  void Save(TrainingState& s) const override {
    replicas_.Save(s, /*own_state=*/!average_state_ || Combine::kOwnWeights, Combine::kOwnWeights);
    combine_.Save(s);
  }
  void Load(const TrainingState& s) override {
    replicas_.Load(s);
    combine_.Load(s);
  }

 private:
  Local local_;
  Combine combine_;
  Replicas replicas_;
  int period_;
  bool average_state_;
  uint64_t minibatches_ = 0;  // this epoch's, the most any worker has
  EpochTotals reported_;      // this epoch's totals reported by the parts before
};

// The replica schemes' registry: calls fn(combine) with the combining step of config.scheme.
template <class Fn>
decltype(auto) WithReplicaCombine(const TrainConfig& config, uint64_t size, Fn&& fn) {
  if (config.scheme == SchemeKind::kGossip) return fn(GossipCombine(config.average_state));
  if (config.scheme == SchemeKind::kElastic) {
    return fn(ElasticCombine(static_cast<float>(config.elastic_alpha), size));  // resolved
  }
  return fn(AverageCombine(config.average_state, config.outer, config.average_rule, size));
}

// A replica runner for `config` (a replica scheme) over the model's local trainer.
template <class Base, class Local>
std::unique_ptr<Base> MakeReplicaRunner(const TrainConfig& config, Local&& local, int workers,
                                        uint64_t size) {
  return WithReplicaCombine(config, size,
                            [&]<class Combine>(Combine&& combine) -> std::unique_ptr<Base> {
                              return std::make_unique<ReplicaRunner<Base, Local, Combine>>(
                                  std::move(local), std::move(combine), workers, size,
                                  config.period, config.average_state);
                            });
}

}  // namespace parsgd
