// Internal: the sync scheme (and sequential minibatch SGD), written once over the model. Each step
// takes one global minibatch of --batch samples, cut the same way on every backend
// (sync_split.hpp). Phase A: every worker computes its part of the minibatch from the same
// parameters (nobody writes them meanwhile). Phase B: the owners of each range of coordinates
// combine the parts in a fixed order and apply the optimiser rule once. Both phases are fork-joins,
// so the steps are separated by a barrier; every sum is taken in a fixed order, so the result does
// not depend on timing, and with one worker it is sequential minibatch SGD.
//
// A model takes part through a "sync local" (minibatch_runner.cpp, dense_runner.cpp):
//   using Context;                                   the epoch's context of the model's runners
//   std::span<const uint32_t> Shard(const Context&, int w);   worker w's rows this epoch (workers
//   in
//                                                    parallel)
//   void Compute(const Context&, const SyncSplit&, uint64_t s, int w);   phase A: w's part of step
//   s void Apply(const Context&, const SyncSplit&, uint64_t s, int w, uint64_t size,
//              const RuleContext&);                  phase B: the coordinates worker w owns
//   void AddLoss(double& sum, const SyncSplit&, uint64_t s) const;       the step's losses added to
//                                                    sum one by one, in the model's fixed order
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "runner.hpp"
#include "sync_split.hpp"

namespace parsgd {

template <class Params, class Local>
class SyncRunner final : public Runner<Params> {
 public:
  using Context = RunContext<Params>;

  explicit SyncRunner(Local&& local) : local_(std::move(local)) {}

  EpochTotals Run(const Context& c) override {
    const int workers = c.workers;  // Resolve checked batch >= workers
    std::vector<std::span<const uint32_t>> shards(workers);
    c.executor->RunWorkers(workers, [&](int w) { shards[w] = local_.Shard(c, w); });
    const SyncSplit split(std::move(shards), c.batch);
    const uint64_t steps = split.steps();
    EpochTotals totals;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    for (uint64_t s = 0; s < steps && !stop.load(std::memory_order_relaxed); ++s) {
      const uint64_t size = split.Offset(s, workers);
      const RuleContext rc =
          MakeRuleContext(c.optimizer, StepAt(c, static_cast<double>(totals.updates)),
                          static_cast<double>(c.epoch * steps + s + 1));
      c.executor->RunWorkers(workers, [&](int w) { local_.Compute(c, split, s, w); });
      c.executor->RunWorkers(workers, [&](int w) { local_.Apply(c, split, s, w, size, rc); });
      local_.AddLoss(totals.loss_sum, split, s);
      totals.updates += size;
    }
    return totals;
  }

 private:
  Local local_;
};

}  // namespace parsgd
