// Internal: the asynchronous schemes (sequential, hogwild, locked, striped, atomic), written once
// over the model. Every worker walks its own shard and updates the shared parameters as it goes,
// under the scheme's write policy and guard; between two blocks of its samples it recomputes the
// step size (and Adam's step count) from its progress, scaled by the workers (an estimate of the
// whole run's), and checks the stop flag.
//
// A model takes part through an "async local" (model/linear/async_local.cpp: per-sample sparse
// steps of the linear models; model/mlp/mlp_runner.cpp: minibatch steps of the MLP):
//   using Context;                                 the epoch's context of the model's runners
//   std::span<const uint32_t> Shard(const Context&, int w);   worker w's rows this epoch
//   uint64_t Block(const Context&) const;           samples between two step sizes
//   double SamplesPerUpdate(const Context&) const;  samples an optimiser step takes (1, or --batch)
//   void Train(const Context&, int w, std::span<const uint32_t> shard, uint64_t begin,
//              uint64_t end, const RuleContext&, double& loss);  worker w trains on
//                                                  shard[begin, end), adding each loss to `loss`
// and, where the model keeps state of its own between epochs (the dual solver's dual variables),
//   void Save(TrainingState&) const; void Load(const TrainingState&);
// and where it has work to do after the workers' epoch (the dual solver's resync),
//   void EndEpoch(const Context&);
// and where it solves a dual, its objective (Runner::DualObjective):
//   double DualObjective(const Dataset&, const float* targets, const Params&) const;
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "parsgd/util/array.hpp"
#include "runner.hpp"

namespace parsgd {

// A scheme's shared object (scheme/scheme.hpp): the striped scheme's locks are sized by the model.
template <class Scheme>
Scheme MakeScheme(uint64_t features, int outputs) {
  if constexpr (std::is_constructible_v<Scheme, uint64_t, int>) {
    return Scheme(features, outputs);
  } else {
    return Scheme();
  }
}

template <class Params, class Local>
class AsyncRunner final : public Runner<Params> {
 public:
  using Context = RunContext<Params>;

  template <class... Args>
  explicit AsyncRunner(int workers, Args&&... args)
      : local_(std::forward<Args>(args)...), totals_(workers), shards_(workers) {}

  // Runs part c.part of c.parts of the epoch (RunContext): each worker's rows
  // [n part / parts, n (part + 1) / parts) of its shard of n rows.
  EpochTotals Run(const Context& c) override {
    c.executor->RunWorkers(c.workers, [&](int w) { RunWorker(c, w); });
    if constexpr (requires { local_.EndEpoch(c); }) {
      const bool last = c.part + 1 == c.parts;
      if (last && !c.executor->stop_flag().load(std::memory_order_relaxed)) local_.EndEpoch(c);
    }
    EpochTotals totals;
    for (const Totals& t : totals_) {  // worker order: deterministic for one worker
      totals.loss_sum += t.loss;
      totals.updates += t.done;
    }
    return totals;
  }

  void Save(TrainingState& s) const override {
    if constexpr (requires { local_.Save(s); }) local_.Save(s);
  }
  void Load(const TrainingState& s) override {
    if constexpr (requires { local_.Load(s); }) local_.Load(s);
  }
  std::optional<double> DualObjective(const Dataset& data, const float* targets,
                                      const Params& params) const override {
    if constexpr (requires { local_.DualObjective(data, targets, params); }) {
      return local_.DualObjective(data, targets, params);
    } else {
      return std::nullopt;
    }
  }

 private:
  // A worker's counters, on its own cache line, written once per epoch.
  struct alignas(kCacheLine) Totals {
    double loss = 0;
    uint64_t done = 0;
  };

  void RunWorker(const Context& c, int w) {
    // The epoch's shard, made at its first part and kept for the others.
    if (c.part == 0) shards_[w] = local_.Shard(c, w);
    const std::span<const uint32_t> shard = shards_[w];
    const std::atomic<bool>& stop = c.executor->stop_flag();
    const double rows = static_cast<double>(c.data->rows());
    const uint64_t block = local_.Block(c);
    const double per_update = local_.SamplesPerUpdate(c);
    double loss = 0;
    const uint64_t n = shard.size();
    const uint64_t first = PartStart(n, c.part, c.parts), last = PartStart(n, c.part + 1, c.parts);
    uint64_t done = first;
    for (uint64_t begin = first; begin < last; begin += block) {
      if (stop.load(std::memory_order_relaxed)) break;
      const double samples = static_cast<double>(begin) * c.workers;
      const RuleContext rc = MakeRuleContext(c.optimizer, StepAt(c, samples),
                                             (c.epoch * rows + samples) / per_update + 1);
      const uint64_t end = std::min(last, begin + block);
      local_.Train(c, w, shard, begin, end, rc, loss);
      done = end;
    }
    totals_[w] = {loss, done - first};
  }

  Local local_;
  std::vector<Totals> totals_;
  std::vector<std::span<const uint32_t>> shards_;  // per worker, this epoch's
};

}  // namespace parsgd
