// Internal: the sync scheme (and sequential minibatch SGD), written once over the model. Each step
// takes one global minibatch of --batch samples, cut the same way on every backend
// (scheme/sync_split.hpp). Phase A: every worker computes its part of the minibatch from the same
// parameters (nobody writes them meanwhile). Phase B: the owners of each range of coordinates sum
// the parts in a fixed order and apply the optimiser rule once. Both phases are fork-joins, so the
// steps are separated by a barrier; every sum is taken in a fixed order, so the result does not
// depend on timing, and with one worker it is sequential minibatch SGD.
//
// Across ranks (`--ranks-scheme sync`, RunContext::ranks): data-parallel synchronous SGD. The
// global minibatch is cut among the ranks first (rank r takes B / R samples of its share, the
// remainder going to the first ranks), then among each rank's workers; between the owners' sums
// and the rule, every rank's step gradient is summed over the ranks (Communicator::SumAll: every
// rank gets the same bits), so every rank applies the same update and holds the same model. The
// step size follows the samples of every rank, and every rank takes as many steps as the largest
// share needs (a rank whose share is done adds nothing to the later ones). Each rank sums its part
// first, so a step's gradient is the in-process one's to the rounding of that order: with one
// sample of each rank in a step, R ranks of one worker are the sync scheme of R workers bit for
// bit (tests/scheme/ranks_schemes_test.cpp).
//
// A model takes part through a "sync local": the concept SyncLocal below
// (model/linear/sync_local.cpp, model/mlp/mlp_runner.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "runner.hpp"
#include "sync_split.hpp"

namespace parsgd {

// What the sync runner asks of a model's half.
template <class L>
concept SyncLocal = requires(L& local, const L& read, const typename L::Context& c,
                             const SyncSplit& split, uint64_t step, int w, uint64_t size,
                             const RuleContext& rc, Communicator& ranks, double& sum) {
  // Worker w's rows this epoch (the workers in parallel).
  { local.Shard(c, w) } -> std::convertible_to<std::span<const uint32_t>>;
  // Phase A: w's part of step `step`.
  local.Compute(c, split, step, w);
  // Phase B, first half: the step's gradient on the coordinates worker w owns (`size`: the
  // samples of the step, over every rank).
  local.Sum(c, split, step, w, size);
  // The step's gradient summed over the ranks.
  local.SumRanks(ranks);
  // Phase B, second half: the rule on w's coordinates (the last argument: after SumRanks).
  local.ApplySum(c, w, size, rc, true);
  // The step's losses added to `sum` one by one, in the model's fixed order.
  read.AddLoss(sum, split, step);
};

// Rank `rank`'s share of a global minibatch of `batch` samples over `ranks` ranks.
inline int RankBatch(int batch, int rank, int ranks) {
  return batch / ranks + (rank < batch % ranks ? 1 : 0);
}

template <class Params, SyncLocal Local>
class SyncRunner final : public Runner<Params> {
 public:
  using Context = RunContext<Params>;

  explicit SyncRunner(Local&& local) : local_(std::move(local)) {}

  // Runs steps [steps p / parts, steps (p + 1) / parts) of the epoch for part p (RunContext).
  EpochTotals Run(const Context& c) override {
    const int workers = c.workers;  // Resolve checked the batch against the workers
    if (c.part == 0) Start(c);
    const SyncSplit& split = *split_;
    EpochTotals totals;
    const std::atomic<bool>& stop = c.executor->stop_flag();
    const uint64_t first = PartStart(steps_, c.part, c.parts),
                   last = PartStart(steps_, c.part + 1, c.parts);
    for (uint64_t s = first; s < last; ++s) {
      RuleContext rc =
          MakeRuleContext(c.optimizer, StepAt(c.step, c.epoch, static_cast<double>(done_), rows_),
                          static_cast<double>(c.epoch * steps_ + s + 1));
      rc.penalty = PenaltyClock(c, static_cast<double>(done_), double(steps_)) + rc.eta;
      rc.samples = c.epoch * c.data->rows() + mine_done_;  // --asgd's clock: this rank's samples
      const uint64_t mine = split.Offset(s, workers);
      uint64_t size = mine;
      if (c.ranks == nullptr) {
        if (stop.load(std::memory_order_relaxed)) break;
        c.executor->RunWorkers(workers, [&](int w) { local_.Compute(c, split, s, w); });
        c.executor->RunWorkers(workers, [&](int w) {
          local_.Sum(c, split, s, w, size);
          local_.ApplySum(c, w, size, rc, false);
        });
      } else if (!RankStep(c, split, s, rc, size, totals.comm_seconds)) {
        break;
      }
      local_.AddLoss(totals.loss_sum, split, s);
      totals.updates += mine;
      done_ += size;
      mine_done_ += mine;
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return totals;
  }

 private:
  // The epoch's minibatches, made at its first part: the shards, this rank's share of the batch,
  // the step count, the rows the step size counts.
  void Start(const Context& c) {
    std::vector<std::span<const uint32_t>> shards(c.workers);
    c.executor->RunWorkers(c.workers, [&](int w) { shards[w] = local_.Shard(c, w); });
    const int batch =
        c.ranks != nullptr ? RankBatch(c.batch, c.ranks->rank(), c.ranks->size()) : c.batch;
    split_.emplace(std::move(shards), batch);
    steps_ = split_->steps();
    rows_ = c.data->rows();
    if (c.ranks != nullptr) {
      steps_ = c.ranks->Max(steps_);
      rows_ = c.ranks->Sum(rows_);
    }
    done_ = 0;
    mine_done_ = 0;
  }

  // Step s across ranks: phase A, then the step's samples, stop flags and failures of every rank
  // summed in one collective, so that every rank leaves the epoch at the same step when one is
  // stopped or failed (its error rethrown after the loop: the trainer agrees on it) and none waits
  // for it in the gradients' sum; then the owners' sums, their sum over the ranks, the rule. `size`
  // becomes the step's samples of every rank. Returns false where the ranks stop.
  bool RankStep(const Context& c, const SyncSplit& split, uint64_t s, const RuleContext& rc,
                uint64_t& size, double& comm_seconds) {
    const int workers = c.workers;
    try {
      c.executor->RunWorkers(workers, [&](int w) { local_.Compute(c, split, s, w); });
    } catch (...) {
      error_ = std::current_exception();
    }
    const bool stopped = c.executor->stop_flag().load(std::memory_order_relaxed);
    uint64_t step[3] = {size, stopped ? 1u : 0u, error_ ? 1u : 0u};
    auto start = std::chrono::steady_clock::now();
    c.ranks->SumAll(step);
    comm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (step[1] != 0 || step[2] != 0) return false;
    size = step[0];
    c.executor->RunWorkers(workers, [&](int w) { local_.Sum(c, split, s, w, size); });
    start = std::chrono::steady_clock::now();
    local_.SumRanks(*c.ranks);
    comm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    c.executor->RunWorkers(workers, [&](int w) { local_.ApplySum(c, w, size, rc, true); });
    return true;
  }

  Local local_;
  std::optional<SyncSplit> split_;
  uint64_t steps_ = 0;
  uint64_t rows_ = 0;  // the epoch's rows, of every rank
  uint64_t done_ = 0;  // samples of every rank this epoch
  uint64_t mine_done_ = 0;  // this rank's samples this epoch
  std::exception_ptr error_;
};

}  // namespace parsgd
