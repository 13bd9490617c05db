// The summed loss gradient of a minibatch, kept sparse: a dense accumulator that is zero outside
// the features the minibatch touched, the list of those features in first-touch order, and how many
// of the minibatch's rows had each. Applying it costs O(touched coordinates), not O(model).
#pragma once

#include <cstdint>
#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear/linear_step.hpp"

namespace parsgd {

// The rule on feature j's `outputs` coordinates with the mean of their summed gradients (sum *
// inv, inv = 1 / the minibatch's samples) and the L2 term of feature j weighted by the fraction of
// the samples that had it (count * inv); the sums cleared. The one step of a minibatch's gradient
// on a feature, for every backend (GradientSum here; the offload backend's sync kernel).
// With `l1_rates`, the L1 term of feature j likewise.
template <class Rule, class Write>
inline void ApplyFeatureMean(const ParamArrays& arrays, const FeatureRate* rates, uint32_t j,
                             int outputs, float* sum, uint32_t count, float inv,
                             const RuleContext& c, const float* l1_rates = nullptr) {
  const float share = static_cast<float>(count) * inv;
  const float q = rates ? rates[j].shrink_rate * share : 0.f;
  const float reg = Rule::Prepare(c, q);
  const uint64_t at = static_cast<uint64_t>(j) * outputs;
  const RuleContext cj = Rule::kScaleFree && rates ? FeatureContext<Rule>(c, rates[j].step_scale) : c;
  if (l1_rates) {
    // The cumulative penalty (sgd) owes by its clock; the other rules' term is a step's share.
    const float a = Rule::kCumulativeL1 ? l1_rates[j] : l1_rates[j] * share;
    for (int k = 0; k < outputs; ++k) {
      Rule::template Apply<Write, true>(arrays, at + k, sum[at + k] * inv, reg, cj, a);
      sum[at + k] = 0.f;
    }
    return;
  }
  for (int k = 0; k < outputs; ++k) {
    Rule::template Apply<Write>(arrays, at + k, sum[at + k] * inv, reg, cj);
    sum[at + k] = 0.f;
  }
}
// The same for the bias's `outputs` coordinates at `at` (never regularised).
template <class Rule, class Write>
inline void ApplyBiasMean(const ParamArrays& arrays, uint64_t at, int outputs, float* sum,
                          float inv, const RuleContext& c) {
  const float none = Rule::Prepare(c, 0.f);
  for (int k = 0; k < outputs; ++k) {
    Rule::template Apply<Write>(arrays, at + k, sum[at + k] * inv, none, c);
    sum[at + k] = 0.f;
  }
}
// The input a nonzero x_j adds to feature j's gradient sums, d_k times it: x_j m_j.
inline float StepInputOf(float value, const FeatureRate* rates, uint32_t j) {
  return rates ? value * rates[j].step_scale : value;
}

// kOutputs: 1 for the binary models (the inner loops vanish), 0 for K known at run time.
template <int kOutputs>
class GradientSum {
 public:
  // sum: (features + 1) * outputs floats, count: features counters, both zero. Several GradientSums
  // may share the arrays if they keep disjoint features (the sync scheme's owners).
  GradientSum(float* sum, uint32_t* count, uint64_t features, int outputs)
      : sum_(sum), count_(count), features_(features), outputs_(outputs) {}

  // Adds row x's gradient d_k m_j x_j for the features `keep(j)` accepts.
  template <class Keep>
  void Add(const SparseRow& x, const float* d, const FeatureRate* rates, Keep keep) {
    // Members in locals: the compiler cannot know that the float stores leave them unchanged.
    float* const sum = sum_;
    uint32_t* const count = count_;
    const int k_out = kOutputs > 0 ? kOutputs : outputs_;
    for (uint32_t e = 0; e < x.nnz; ++e) {
      const uint32_t j = x.index[e];
      if (!keep(j)) continue;
      const float input = StepInput(x.value[e], rates, j);
      float* s = sum + static_cast<uint64_t>(j) * k_out;
      for (int k = 0; k < k_out; ++k) s[k] += d[k] * input;
      if (count[j]++ == 0) touched_.push_back(j);
    }
  }
  // Adds the gradient d_k input of feature j, input = StepInput(x_j, rates, j): one nonzero of Add,
  // the same arithmetic, for callers that routed the nonzeros themselves.
  void AddInput(uint32_t j, const float* d, float input) {
    const int k_out = kOutputs > 0 ? kOutputs : outputs_;
    float* s = sum_ + static_cast<uint64_t>(j) * k_out;
    for (int k = 0; k < k_out; ++k) s[k] += d[k] * input;
    if (count_[j]++ == 0) touched_.push_back(j);
  }
  static float StepInput(float value, const FeatureRate* rates, uint32_t j) {
    return StepInputOf(value, rates, j);
  }
  void AddBias(const float* d) {
    float* s = sum_ + features_ * outputs_;
    for (int k = 0; k < outputs_; ++k) s[k] += d[k];
    has_bias_ = true;
  }

  // Applies the rule to every touched coordinate with the minibatch mean over `rows` samples (and
  // the L2 and L1 terms of feature j weighted by the fraction of rows that had it), then clears.
  template <class Rule, class Write>
  void ApplyAndClear(const LinearParams& p, uint32_t rows, const RuleContext& c) {
    const float inv = 1.f / static_cast<float>(rows);
    float* const sum = sum_;
    uint32_t* const count = count_;
    const int k_out = kOutputs > 0 ? kOutputs : outputs_;
    // --asgd: each mean caught up before its weights change.
    AverageClock clock;
    const LazyAverage* average =
        p.average != nullptr && ClockAt(*p.average, c.samples, clock) ? p.average : nullptr;
    for (uint32_t j : touched_) {
      if (average != nullptr) CatchUp<Write, kOutputs>(*average, p.arrays.weights, j, k_out, clock);
      ApplyFeatureMean<Rule, Write>(p.arrays, p.rates, j, k_out, sum, count[j], inv, c,
                                    p.l1_rates);
      count[j] = 0;
    }
    touched_.clear();
    if (has_bias_) {
      if (average != nullptr)
        CatchUp<Write>(*average, p.arrays.weights, features_, outputs_, clock);
      ApplyBiasMean<Rule, Write>(p.arrays, features_ * outputs_, outputs_, sum_, inv, c);
      has_bias_ = false;
    }
  }

  // The touched features made anew from the counts (after the arrays were summed with other ranks'
  // ones, whose touched features this one never saw): every feature `keep` accepts with a nonzero
  // count, and the bias when `bias`. Cost: O(features).
  template <class Keep>
  void CollectTouched(Keep keep, bool bias) {
    touched_.clear();
    for (uint64_t j = 0; j < features_; ++j) {
      if (count_[j] != 0 && keep(static_cast<uint32_t>(j)))
        touched_.push_back(static_cast<uint32_t>(j));
    }
    has_bias_ = bias;
  }

  const std::vector<uint32_t>& touched() const { return touched_; }

 private:
  float* sum_;
  uint32_t* count_;
  uint64_t features_;
  int outputs_;
  std::vector<uint32_t> touched_;
  bool has_bias_ = false;
};

// Which worker owns each feature when the workers split the coordinates: blocks of 64 features
// dealt round-robin (balanced even when frequent features cluster; each owner's writes stay on its
// own cache lines). A table, since a division per nonzero would cost more than the rest of the
// work.
class FeatureOwners {
 public:
  FeatureOwners(uint64_t features, int workers) : owner_((features >> 6) + 1) {
    for (std::size_t b = 0; b < owner_.size(); ++b) owner_[b] = static_cast<uint16_t>(b % workers);
  }
  int Of(uint32_t j) const { return owner_[j >> 6]; }

 private:
  std::vector<uint16_t> owner_;
};

}  // namespace parsgd
