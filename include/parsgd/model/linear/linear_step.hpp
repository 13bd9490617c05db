// One SGD step of a linear model on one sample: the inner loop of the asynchronous schemes.
// Header-only so it inlines into the epoch loop and into the kernel benchmarks.
//
// L2 regularisation costs O(nonzeros): only the coordinates the sample touches are shrunk, by the
// per-feature rate r_j = l2 * n / d_j, where d_j is the number of training rows that have feature
// j. Over a uniformly drawn row this regulariser is (l2 / 2) ||w||^2 in expectation, exactly the
// objective's, and untouched coordinates cost nothing (the Hogwild! paper's sparse separable form).
// An L1 penalty is taken at the coordinates a step touches too: plain SGD's as the cumulative
// penalty (a weight takes, at its next touch, what every step since owed it: optimizer.hpp), the
// other rules' as a soft-threshold at their step times m_j l1 n / d_j, l1 ||w||_1 in expectation;
// a weight either reaches is exactly 0.
//
// Each feature may also carry a step multiplier m_j (a diagonal preconditioner: with --normalize
// maxabs, m_j = 1 / max_i |x_ij|^2, which is plain SGD on features scaled to [-1, 1], expressed on
// the unscaled weights). With plain SGD the update of a touched coordinate is
//     w_j <- (w_j - eta m_j g x_j) / (1 + eta m_j r_j),
// the regulariser taken implicitly: stable for any step size, even on rare features where m_j r_j
// is large. Every other rule takes it implicitly too, at its own step (optimizer.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "parsgd/data/dataset.hpp"
#include "parsgd/kernel/sparse_kernels.hpp"
#include "parsgd/model/linear/average.hpp"
#include "parsgd/model/linear/loss.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/scheme/write_policy.hpp"

namespace parsgd {

// What a step needs to know about the shared parameters.
struct LinearParams {
  ParamArrays arrays;        // weights ((features + 1) * outputs, LinearModel's layout) and state
  uint64_t features;         // the bias block starts at features * outputs
  int outputs;               // K
  const FeatureRate* rates;  // per feature; nullptr: m_j = 1 and r_j = 0 for all j
  bool bias = true;          // whether the bias is trained (--bias on); off, it stays as it is (0)
  const float* l1_rates = nullptr;  // per feature, the L1 term m_j l1 n / d_j; nullptr: no L1
  const LazyAverage* average = nullptr;  // --asgd: the averaged model, brought up to date lazily
  // The vector path of the kernels (parsgd/kernel/sparse_kernels.hpp): the CPU runners set
  // KernelIsa(ActiveIsa(), ...); scalar by default.
  Isa isa = Isa::kScalar;
};

// The steps' template flag kVectorPaths: whether the kernels may take the vector paths of p.isa.
// False in the offload backend's target regions, which a device without x86 vector units runs
// (and which must not name the vector paths' host functions).

// A loss head is a small value (empty, or the loss's parameter) that the training loops hold and
// call per sample.

// Binary head: one score, a margin loss or a regression loss from parsgd/model/linear/loss.hpp
// (the runners' is BinaryHead<ScoreLoss>, the loss chosen at run time; the offload kernels' and the
// benchmarks' name the loss's type).
template <class Loss>
struct BinaryHead {
  static constexpr int kOutputs = 1;
  Loss loss = {};
  // Replaces z[0] by d loss / dz and returns the loss.
  double LossAndGradient(float* z, int, float target) const {
    return loss.ValueAndDerivative(z[0], target, z);
  }
  double Value(const float* z, int, float target) const { return loss.Value(z[0], target); }
  // Whether the predicted class (the sign of the score, 0 counting as positive) is the target's.
  bool Correct(const float* z, int, float target) const { return (z[0] >= 0) == (target > 0); }
};

// Softmax head: K scores, K known at run time.
struct SoftmaxHead {
  static constexpr int kOutputs = 0;  // dynamic
  double LossAndGradient(float* z, int k, float target) const {
    return SoftmaxLoss::ValueAndGradient(z, k, static_cast<int>(target), z);
  }
  double Value(const float* z, int k, float target) const {
    return SoftmaxLoss::Value(z, k, static_cast<int>(target));
  }
  // Whether the predicted class (the first of the largest scores) is the target.
  bool Correct(const float* z, int k, float target) const {
    int best = 0;
    for (int c = 1; c < k; ++c) {
      if (z[c] > z[best]) best = c;
    }
    return best == static_cast<int>(target);
  }
};

// One-vs-rest head: K scores, each a binary classifier of its class against the others under one
// of the margin losses, the loss the sum of the K binary losses with targets +1 (the row's class)
// and -1 (every other).
struct OneVsRestHead {
  static constexpr int kOutputs = 0;  // dynamic
  ScoreLoss binary;                   // logistic, hinge, squared-hinge or squared

  double LossAndGradient(float* z, int k, float target) const {
    const int y = static_cast<int>(target);
    double sum = 0;
    for (int c = 0; c < k; ++c) sum += binary.ValueAndDerivative(z[c], c == y ? 1.f : -1.f, &z[c]);
    return sum;
  }
  double Value(const float* z, int k, float target) const {
    const int y = static_cast<int>(target);
    double sum = 0;
    for (int c = 0; c < k; ++c) sum += binary.Value(z[c], c == y ? 1.f : -1.f);
    return sum;
  }
  // Whether the class of the largest score (the first of them) is the target.
  bool Correct(const float* z, int k, float target) const {
    int best = 0;
    for (int c = 1; c < k; ++c) {
      if (z[c] > z[best]) best = c;
    }
    return best == static_cast<int>(target);
  }
};

// Scores z (outputs floats) of row x from the weights, read by `Read::Load` (a write policy of
// scheme/write_policy.hpp: relaxed atomic loads of weights other workers write, by default).
template <int kOutputs, class Read = StoreWrite, bool kVectorPaths = true>
inline void LinearScores(const LinearParams& p, const SparseRow& x, float* z) {
  const float* w = p.arrays.weights;
  if constexpr (kOutputs == 1) {
    if constexpr (kVectorPaths) {
      if (p.isa != Isa::kScalar) {
        z[0] = Read::Load(w[p.features]) + SparseDot(p.isa, w, x.index, x.value, x.nnz);
        return;
      }
    }
    // Four partial sums in registers: the adds of one row do not wait on each other.
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t e = 0;
    for (; e + 4 <= x.nnz; e += 4) {
      s0 += x.value[e] * Read::Load(w[x.index[e]]);
      s1 += x.value[e + 1] * Read::Load(w[x.index[e + 1]]);
      s2 += x.value[e + 2] * Read::Load(w[x.index[e + 2]]);
      s3 += x.value[e + 3] * Read::Load(w[x.index[e + 3]]);
    }
    for (; e < x.nnz; ++e) s0 += x.value[e] * Read::Load(w[x.index[e]]);
    z[0] = Read::Load(w[p.features]) + ((s0 + s1) + (s2 + s3));
  } else {
    const int k_out = kOutputs > 0 ? kOutputs : p.outputs;
    const float* bias = w + p.features * k_out;
    for (int k = 0; k < k_out; ++k) z[k] = Read::Load(bias[k]);
    if constexpr (kVectorPaths) {
      if (p.isa != Isa::kScalar) return RowScores(p.isa, w, x.index, x.value, x.nnz, k_out, z);
    }
    for (uint32_t e = 0; e < x.nnz; ++e) {
      const float v = x.value[e];
      const float* wj = w + static_cast<uint64_t>(x.index[e]) * k_out;
      for (int k = 0; k < k_out; ++k) z[k] += v * Read::Load(wj[k]);
    }
  }
}

// The writes of one chunk of LinearUpdate's coordinates, with or without the L1 term. Always
// inlined: a call would let the chunk's arrays escape, and the compiler then reloads them after
// every write of a weight (which it must assume may alias them): 16% of the per-sample replicas'
// epoch.
template <class Rule, class Write, bool kL1>
[[gnu::always_inline]] inline void ApplyChunk(const ParamArrays& arrays, const uint32_t* index,
                                              uint32_t n, int k_out, const float* d,
                                              const float* input, const float* reg,
                                              const float* scale, const float* l1,
                                              const RuleContext& c, const FeatureRate* rates) {
  for (uint32_t e = 0; e < n; ++e) {
    const uint64_t at = static_cast<uint64_t>(index[e]) * k_out;
    const float a = kL1 ? l1[e] : 0.f;
    if constexpr (Rule::kScaleFree) {
      const RuleContext ce = rates ? FeatureContext<Rule>(c, scale[e]) : c;
      for (int k = 0; k < k_out; ++k) {
        Rule::template Apply<Write, kL1>(arrays, at + k, d[k] * input[e], reg[e], ce, a);
      }
    } else {
      for (int k = 0; k < k_out; ++k) {
        Rule::template Apply<Write, kL1>(arrays, at + k, d[k] * input[e], reg[e], c, a);
      }
    }
  }
}

// The biases' step (--bias on): bias k gets loss gradient d_k and no L2 term.
template <class Rule, class BiasWrite>
[[gnu::always_inline]] inline void UpdateBias(const LinearParams& p, int k_out, const float* d,
                                              const RuleContext& c) {
  if (!p.bias) return;
  const uint64_t bias = p.features * k_out;
  const float no_reg = Rule::Prepare(c, 0.f);
  for (int k = 0; k < k_out; ++k) {
    Rule::template Apply<BiasWrite>(p.arrays, bias + k, d[k], no_reg, c);
  }
}

// Applies the rule to the coordinates row x touches, given d_k = dloss/dz_k: coordinate (j, k) gets
// loss gradient d_k m_j x_j and L2 term m_j r_j; bias k gets d_k and none. Out of line: inlined
// into the per-sample loop under plain writes (sequential), the one-output loop ran out of
// registers and took 5% longer; a call per sample costs the softmax step nothing measurable.
template <int kOutputs, class Rule, class Write, class BiasWrite, bool kVectorPaths = true>
[[gnu::noinline]] void LinearUpdate(const LinearParams& p, const SparseRow& x, const float* d_in,
                                    const RuleContext& c_in) {
  const int k_out = kOutputs > 0 ? kOutputs : p.outputs;
  // Plain SGD without L1, written by relaxed or plain stores: the vector paths' step.
  constexpr bool kVectorStep =
      kVectorPaths && Rule::kKind == OptimizerKind::kSgd && !std::is_same_v<Write, CasWrite>;
  if constexpr (kVectorStep) {
    if (p.isa != Isa::kScalar && p.l1_rates == nullptr) {
      if (k_out == 1) {
        SgdSparseStep(p.isa, p.arrays.weights, x.index, x.value, x.nnz, p.rates, d_in[0], c_in.eta);
      } else {
        SgdRowsStep(p.isa, p.arrays.weights, x.index, x.value, x.nnz, k_out, p.rates, d_in,
                    c_in.eta);
      }
      UpdateBias<Rule, BiasWrite>(p, k_out, d_in, c_in);
      return;
    }
  }
  // Local copies of what the writes loop reads: the compiler treats an atomic store as writing
  // any memory whose address escaped, and reloaded the weights pointer, the step size and d from
  // memory after every coordinate (a third of the loop's loads). d is copied when K is known at
  // compile time (the binary heads); the softmax head reads it from `d_in`.
  const ParamArrays arrays = p.arrays;
  const RuleContext c = c_in;
  float d_local[kOutputs > 0 ? kOutputs : 1];
  const float* d = d_in;
  if constexpr (kOutputs > 0) {
    std::copy(d_in, d_in + kOutputs, d_local);
    d = d_local;
  }
  // The per-entry factors of a chunk are computed first (the L2 shrinks in a loop of independent
  // divisions the compiler vectorises), then applied.
  constexpr uint32_t kChunk = 64;
  float input[kChunk], reg[kChunk];
  [[maybe_unused]] float scale[Rule::kScaleFree ? kChunk : 1];  // m_j, for FeatureContext
  [[maybe_unused]] float l1[kChunk];                            // the L1 terms, with p.l1_rates
  for (uint32_t begin = 0; begin < x.nnz; begin += kChunk) {
    const uint32_t n = std::min(kChunk, x.nnz - begin);
    // Pointers, not x.value[begin + e]: a 32-bit index sum may wrap, so g++ kept it in vector
    // registers and extracted each lane to address the load (a third of the update's instructions).
    const uint32_t* index = x.index + begin;
    const float* value = x.value + begin;
    if (p.rates) {
      for (uint32_t e = 0; e < n; ++e) {
        const FeatureRate rate = p.rates[index[e]];
        input[e] = value[e] * rate.step_scale;
        reg[e] = rate.shrink_rate;
        if constexpr (Rule::kScaleFree) scale[e] = rate.step_scale;
      }
    } else {
      for (uint32_t e = 0; e < n; ++e) {
        input[e] = value[e];
        reg[e] = 0.f;
      }
    }
    for (uint32_t e = 0; e < n; ++e) reg[e] = Rule::Prepare(c, reg[e]);
    if (p.l1_rates) {
      for (uint32_t e = 0; e < n; ++e) l1[e] = p.l1_rates[index[e]];
      ApplyChunk<Rule, Write, true>(arrays, index, n, k_out, d, input, reg, scale, l1, c, p.rates);
    } else {
      ApplyChunk<Rule, Write, false>(arrays, index, n, k_out, d, input, reg, scale, l1, c,
                                     p.rates);
    }
  }
  UpdateBias<Rule, BiasWrite>(p, k_out, d, c);
}

// --asgd: the means of the coordinates a step on row x is about to change (its features', and the
// biases where they train) brought up to clock `now` (parsgd/model/linear/average.hpp). Out of
// line: only a run that averages calls it.
template <int kOutputs, class Write>
[[gnu::noinline]] void CatchUpRow(const LazyAverage& a, const LinearParams& p, const SparseRow& x,
                                  uint64_t now) {
  AverageClock clock;
  if (!ClockAt(a, now, clock)) return;
  for (uint32_t e = 0; e < x.nnz; ++e) {
    CatchUp<Write, kOutputs>(a, p.arrays.weights, x.index[e], p.outputs, clock);
  }
  if (p.bias) CatchUp<Write, kOutputs>(a, p.arrays.weights, p.features, p.outputs, clock);
}

// Head::LossAndGradient of a row of weight `weight`: the loss and its gradient d (replacing z)
// both scaled by the weight, as the objective's term weight * loss(z, target) has them.
template <class Head>
inline double WeightedLossAndGradient(const Head& head, float* z, int k_out, float target,
                                      float weight) {
  const double loss = head.LossAndGradient(z, k_out, target);
  if (weight == 1.f) return loss;
  for (int k = 0; k < k_out; ++k) z[k] *= weight;
  return loss * weight;
}

// One step on sample (x, target) of weight `weight`; returns the sample's weighted loss before the
// step. z is scratch for `outputs` floats. Holds the scheme's guard from the first read to the
// last write.
template <class Head, class Rule, class Scheme, bool kVectorPaths = true>
inline double LinearSgdStep(const Head& head, Scheme& scheme, const LinearParams& p,
                            const SparseRow& x, float target, float weight, const RuleContext& c,
                            float* z) {
  constexpr int kOut = Head::kOutputs;
  const int k_out = kOut > 0 ? kOut : p.outputs;
  typename Scheme::Guard guard(scheme, x);
  LinearScores<kOut, typename Scheme::Write, kVectorPaths>(p, x, z);
  const double loss = WeightedLossAndGradient(head, z, k_out, target, weight);
  if constexpr (Rule::kKind == OptimizerKind::kSgd) {
    // Plain SGD with a zero gradient and no penalty (hinge beyond the margin) changes nothing.
    bool any = p.rates != nullptr || p.l1_rates != nullptr;
    for (int k = 0; k < k_out; ++k) any |= (z[k] != 0.f);
    if (!any) return loss;
  }
  if (p.average != nullptr) CatchUpRow<kOut, typename Scheme::Write>(*p.average, p, x, c.samples);
  LinearUpdate<kOut, Rule, typename Scheme::Write, typename Scheme::BiasWrite, kVectorPaths>(p, x,
                                                                                              z, c);
  return loss;
}

}  // namespace parsgd
