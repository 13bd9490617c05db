// Internal: the asynchronous schemes (the family kAsync of scheme/scheme_kind.hpp: sequential,
// hogwild, locked, striped, atomic), written once over the model. Every worker walks its own shard
// and updates the shared parameters as it goes, under the scheme's write policy and guard
// (scheme/write_policy.hpp); between two blocks of its samples it recomputes the step size (and
// Adam's step count) from its progress, scaled by the workers (an estimate of the whole run's),
// and checks the stop flag.
//
// A model takes part through an "async local" (the concept AsyncLocal below; the linear models'
// per-sample sparse steps: model/linear/async_local.cpp; the MLP's minibatch steps:
// model/mlp/mlp_runner.cpp; the dual solver's steps: solver/dual_cd.cpp). Optional members, used
// where a local has them:
//   void Save(TrainingState&) const; void Load(const TrainingState&);
//       state of its own between epochs (the dual solver's dual variables);
//   void EndEpoch(const Context&);
//       work after the workers' epoch (the dual solver's resync);
//   double DualObjective(const Dataset&, const float* targets, const Params&) const;
//       where it solves a dual, its objective (Runner::DualObjective).
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "parsgd/util/array.hpp"
#include "runner.hpp"

namespace parsgd {

// What the asynchronous runner asks of a model's half.
template <class L>
concept AsyncLocal = requires(L& local, const L& read, const typename L::Context& c, int w,
                              std::span<const uint32_t> shard, uint64_t at, const RuleContext& rc,
                              double& loss) {
  // Worker w's rows this epoch.
  { local.Shard(c, w) } -> std::convertible_to<std::span<const uint32_t>>;
  // Samples between two step sizes, and the samples one optimiser step takes (1, or --batch).
  { read.Block(c) } -> std::convertible_to<uint64_t>;
  { read.SamplesPerUpdate(c) } -> std::convertible_to<double>;
  // Worker w trains on shard[begin, end), adding each loss to `loss`.
  local.Train(c, w, shard, at, at, rc, loss);
};

// A scheme's shared object (scheme/write_policy.hpp): the striped scheme's locks are sized by the
// model.
template <class Scheme>
Scheme MakeScheme(uint64_t features, int outputs) {
  if constexpr (std::is_constructible_v<Scheme, uint64_t, int>) {
    return Scheme(features, outputs);
  } else {
    return Scheme();
  }
}

template <class Params, AsyncLocal Local>
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
      RuleContext rc = MakeRuleContext(c.optimizer, StepAt(c, samples),
                                       (c.epoch * rows + samples) / per_update + 1);
      rc.penalty = PenaltyClock(c, samples, rows / per_update);
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
