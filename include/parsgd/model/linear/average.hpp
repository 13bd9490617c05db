// Averaged SGD (Polyak and Juditsky 1992; Ruppert 1988; scikit-learn's average=True), the linear
// models' --asgd: the model a run evaluates and saves is the mean of its iterates from a start
// point on, each iterate weighted by the samples it stood for. The clock is the samples the run has
// taken (over every epoch): a per-sample step is one, a minibatch step its samples.
//
// Lazy on sparse rows, so a step stays O(nonzeros): a weight changes only where a step touches it,
// so between two touches it holds one value. Each feature (and the bias) keeps the clock at which
// its mean was last brought up to date; a step catches up the features it is about to change
// (their means take the value they held since, weighted by the samples in between) and the epoch's
// end catches up all of them. The result is the eager mean of every iterate, to rounding.
//
// Under the asynchronous schemes each worker's clock is an estimate of the whole run's (its own
// progress times the workers, as the step size's), and the catch-up is written with the scheme's
// write policy: under Hogwild! two workers catching up one feature at once may count its interval
// once or twice, the same bargain as its weights'.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "parsgd/scheme/write_policy.hpp"

namespace parsgd {

// The averaged model's state: `mean` in the weights' layout ((features + 1) * outputs, the biases
// last), `since` per feature and one for the biases (features + 1): the clock at which its mean
// last took its weights in, never below `start`, the clock where averaging starts (they start
// there; the means are not read before their first catch-up after it, which replaces them).
struct LazyAverage {
  float* mean;
  uint64_t* since;
  uint64_t start;
};

template <class Write>
inline uint64_t LoadClock(const uint64_t& x) {
  if constexpr (std::is_same_v<Write, PlainWrite>) {
    return x;
  } else {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(x)).load(std::memory_order_relaxed);
  }
}
template <class Write>
inline void StoreClock(uint64_t& x, uint64_t value) {
  if constexpr (std::is_same_v<Write, PlainWrite>) {
    x = value;
  } else {
    std::atomic_ref<uint64_t>(x).store(value, std::memory_order_relaxed);
  }
}

// A catch-up's clock: `now`, and 1 / (now - start) (one division a step, not a feature).
struct AverageClock {
  uint64_t now;
  float inverse;
};
// The clock at `now`; false where averaging has not started (now <= start): nothing to catch up.
inline bool ClockAt(const LazyAverage& a, uint64_t now, AverageClock& clock) {
  if (now <= a.start) return false;
  clock = {now, static_cast<float>(1.0 / static_cast<double>(now - a.start))};
  return true;
}

// Brings the means of feature j's outputs (kOutputs, or `outputs` where it is 0; j = features:
// the biases) up to the clock: since `since[j]` they held their current values. The mean of the
// iterates over (start, now] is the mean over (start, since] moved toward the weight by the share
// of the interval it held.
template <class Write, int kOutputs = 0>
inline void CatchUp(const LazyAverage& a, const float* weights, uint64_t j, int outputs,
                    const AverageClock& clock) {
  const uint64_t from = LoadClock<Write>(a.since[j]);
  // One worker's clock only grows; another's may have run ahead of this one's.
  if constexpr (!std::is_same_v<Write, PlainWrite>) {
    if (clock.now <= from) return;
  }
  // Through int64: one instruction on x86-64, where uint64 to float is a branchy sequence.
  const float share = static_cast<float>(static_cast<int64_t>(clock.now - from)) * clock.inverse;
  const int k_out = kOutputs > 0 ? kOutputs : outputs;
  const uint64_t at = j * static_cast<uint64_t>(k_out);
  for (int k = 0; k < k_out; ++k) {
    const float w = Write::Load(weights[at + k]);
    Write::Modify(a.mean[at + k], [&](float m) { return m + (w - m) * share; });
  }
  StoreClock<Write>(a.since[j], clock.now);
}

// Every feature and the biases caught up to `now` (no step running): the means are then the
// averaged model. With the check of the shared writes: an asynchronous worker's clock estimate
// may have passed `now` by a few samples.
inline void CatchUpAll(const LazyAverage& a, const float* weights, uint64_t features, int outputs,
                       uint64_t now) {
  AverageClock clock;
  if (!ClockAt(a, now, clock)) return;
  for (uint64_t j = 0; j <= features; ++j) CatchUp<StoreWrite>(a, weights, j, outputs, clock);
}

}  // namespace parsgd
