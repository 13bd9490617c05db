// Optimisers: the per-coordinate update rules, with the state each keeps per parameter.
//
// A rule sees one parameter at a time: its weight w, its state (0 to 2 floats, in arrays parallel
// to the weights), the loss gradient l of that coordinate (for a sample, dloss/dz_k * x_j * m_j;
// for a minibatch, the mean of those), and the coordinate's L2 term q. Every rule reads and writes
// each of its variables through the scheme's write policy, so under Hogwild! the state is shared
// with the same relaxed-atomic discipline as the weights.
//
// Every rule takes its L2 term implicitly, at the rule's own step on that coordinate:
//     w <- (w - step(l)) / (1 + e q),
// where step(l) is the rule's move for the loss gradient alone and e its effective step size:
// eta for sgd, eta / (1 - mu) for momentum and Nesterov (their steps add up to 1/(1 - mu) of a
// gradient step), eta / (sqrt(s) + eps) for AdaGrad and RMSProp, the same with Adam's corrected
// second moment. The fixed point is the objective's optimum (l + q w = 0 in expectation), and the
// L2 part is stable for any eta q: on rare features with small values q = m_j l2 n / d_j reaches
// 10^3-10^5, and the explicit form g = l + q w (torch.optim's weight_decay) made momentum diverge
// as soon as eta q > 2 (1 + mu) (tests/optim/optimizer_stability_test.cpp). The velocity and Adam's first
// moment follow l alone; the adaptive rules' squared-gradient statistics follow the whole gradient
// l + q w, so that their scale is the coordinate's.
// An L1 term a (the linear models' --l1) is taken by every rule but sgd as the proximal step of
// e (a |w| + q w^2 / 2), a = m_j l1 n / d_j as q: the move for l, then soft-thresholding at e a,
// then the shrink: w <- S(w - step(l), e a) / (1 + e q), S(v, t) = sign(v) max(|v| - t, 0). A
// weight the threshold reaches is set to exactly 0 (truncated gradient, Langford, Li and Zhang
// 2009, at every step); the adaptive rules' statistics follow l + q w + a sign(w).
// sgd takes it as the cumulative penalty of Tsuruoka, Tsujii and Ananiadou (2009), a = m_j l1: a
// weight owes u = a times the sum of every step's size so far (RuleContext::penalty), and its
// state holds the signed total r it was given; after its move to v it takes what it owes toward
// 0 and no further: v > 0: w = max(0, v - (u + r)); v < 0: w = min(0, v + (u - r)); r += w - v;
// then the L2 shrink. Lazy: a coordinate no step touched for a while takes every skipped step's
// penalty at its next touch (as the eager penalty would have, where the weight stays off 0); and a
// weight whose gradient only jitters around 0 stays at exactly 0, where truncating each step's
// own share let the noise keep most weights off 0.
// Sparse data: only the coordinates a sample (or minibatch) touches are updated, state included.
// This is the "lazy" variant (as TensorFlow's LazyAdam and PyTorch's SparseAdam): the decay of the
// momentum or moment estimates of untouched coordinates is skipped, not applied later. On data
// where every feature is present in every row the rules are the dense ones.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "parsgd/scheme/write_policy.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/named.hpp"

namespace parsgd {

enum class OptimizerKind { kAuto, kSgd, kMomentum, kNesterov, kAdaGrad, kRmsProp, kAdam };

inline constexpr Named<OptimizerKind> kOptimizerKinds[] = {
    {OptimizerKind::kAuto, "auto", "sgd for the linear models, momentum for mlp"},
    {OptimizerKind::kSgd, "sgd", "w -= eta g"},
    {OptimizerKind::kMomentum, "momentum", "v = mu v + g; w -= eta v (heavy ball, Polyak 1964)"},
    {OptimizerKind::kNesterov, "nesterov",
     "v = mu v + g; w -= eta (g + mu v) (Sutskever et al. 2013)"},
    {OptimizerKind::kAdaGrad, "adagrad",
     "s += g^2; w -= eta g / (sqrt(s) + eps) (Duchi et al. 2011)"},
    {OptimizerKind::kRmsProp, "rmsprop", "s = rho s + (1-rho) g^2; w -= eta g / (sqrt(s) + eps)"},
    {OptimizerKind::kAdam, "adam", "Adam with bias correction (Kingma and Ba 2015)"},
};

// Hyper-parameters, with the defaults of torch.optim (AdaGrad's epsilon too, for comparability).
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kAuto;  // the trainer resolves it before any rule is chosen
  double momentum = 0.9;                      // momentum, nesterov
  double rho = 0.99;                          // rmsprop: decay of the squared-gradient average
  double beta1 = 0.9;                         // adam
  double beta2 = 0.999;                       // adam
  double epsilon = 1e-8;                      // adagrad (torch: 1e-10), rmsprop, adam
};

// Floats of state per parameter (`l1`: a linear model with --l1, whose sgd keeps the cumulative
// penalty's total given).
constexpr int StateCount(OptimizerKind kind, bool l1 = false) {
  return kind == OptimizerKind::kSgd || kind == OptimizerKind::kAuto ? (l1 ? 1 : 0)
         : kind == OptimizerKind::kAdam                              ? 2
                                                                     : 1;
}

// The weights and the state arrays, all in LinearModel's layout; state arrays the rule does not use
// are null.
struct ParamArrays {
  float* weights;
  float* state0;
  float* state1;
};

// What a rule needs besides the coordinate: the step size now and the rule's constants.
struct RuleContext {
  float eta;
  float momentum, rho, beta1, beta2, epsilon;
  float correction1, correction2;  // adam: 1 / (1 - beta^t) at the current step t
  float momentum_eta;              // momentum, nesterov: eta / (1 - mu), their effective step
  // sgd with --l1: the sum of the step sizes of every step so far, this one's included (the
  // cumulative penalty's clock); the runners set it, per step where they step per sample.
  float penalty = 0;
  // The linear models' --asgd: the samples the run took before this step, over every epoch (the
  // averaged model's clock: parsgd/model/linear/average.hpp); the runners set it where it is on.
  uint64_t samples = 0;
};

// The relaxed (or compare-and-swap) update of one variable: x <- f(x); returns the value written.
template <class Write, class F>
inline float Update(float& x, F f) {
  return Write::Modify(x, f);
}

// S(v, t): v moved toward 0 by t, and 0 where that would cross it.
inline float SoftThreshold(float v, float t) {
  return v > t ? v - t : v < -t ? v + t : 0.f;
}

// Each rule: Prepare(c, q) turns a coordinate's L2 term into what Apply takes as `reg` (computed
// for a chunk of coordinates at once, in a loop the compiler vectorises); Apply updates one
// coordinate given its loss gradient l, and with kL1 its L1 term a.
struct SgdRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kSgd;
  static constexpr bool kScaleFree = false;
  static constexpr bool kCumulativeL1 = true;  // its L1 term: a = m_j l1, state0 the total given
  static float Prepare(const RuleContext& c, float q) { return 1.f / (1.f + c.eta * q); }
  template <class Write, bool kL1 = false>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float shrink, const RuleContext& c,
                    float a = 0.f) {
    const float step = c.eta * l;
    if constexpr (kL1) {
      const float owed = c.penalty * a;
      const float given = Write::Load(p.state0[i]);
      float moved = 0, taken = 0;
      Update<Write>(p.weights[i], [&](float w) {
        moved = w - step;
        taken = moved > 0   ? std::max(0.f, moved - std::max(0.f, owed + given))
                : moved < 0 ? std::min(0.f, moved + std::max(0.f, owed - given))
                            : 0.f;
        return taken * shrink;
      });
      Update<Write>(p.state0[i], [&](float old) { return old + (taken - moved); });
    } else {
      Update<Write>(p.weights[i], [&](float w) { return (w - step) * shrink; });
    }
  }
};

// Momentum and Nesterov: the move for l from the velocity, then the threshold and shrink at their
// effective step eta / (1 - mu).
template <class Write, bool kL1>
inline void MoveShrink(float& weight, float step, float shrink, float a, const RuleContext& c) {
  if constexpr (kL1) {
    const float t = c.momentum_eta * a;
    Update<Write>(weight, [&](float w) { return SoftThreshold(w - step, t) * shrink; });
  } else {
    Update<Write>(weight, [&](float w) { return (w - step) * shrink; });
  }
}

struct MomentumRule {
  static constexpr bool kCumulativeL1 = false;
  static constexpr OptimizerKind kKind = OptimizerKind::kMomentum;
  static constexpr bool kScaleFree = false;
  static float Prepare(const RuleContext& c, float q) { return 1.f / (1.f + c.momentum_eta * q); }
  template <class Write, bool kL1 = false>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float shrink, const RuleContext& c,
                    float a = 0.f) {
    const float v = Update<Write>(p.state0[i], [&](float old) { return c.momentum * old + l; });
    MoveShrink<Write, kL1>(p.weights[i], c.eta * v, shrink, a, c);
  }
};

struct NesterovRule {
  static constexpr bool kCumulativeL1 = false;
  static constexpr OptimizerKind kKind = OptimizerKind::kNesterov;
  static constexpr bool kScaleFree = false;
  static float Prepare(const RuleContext& c, float q) { return 1.f / (1.f + c.momentum_eta * q); }
  template <class Write, bool kL1 = false>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float shrink, const RuleContext& c,
                    float a = 0.f) {
    const float v = Update<Write>(p.state0[i], [&](float old) { return c.momentum * old + l; });
    MoveShrink<Write, kL1>(p.weights[i], c.eta * (l + c.momentum * v), shrink, a, c);
  }
};

// The adaptive rules (kScaleFree) divide the step by the gradient's own scale, so the per-feature
// factor m_j = 1 / max|x_j|^2 that --normalize maxabs gives the gradient cancels in them: each
// weight moved by about eta whatever its feature's scale (adam reached 88.8% on raw breast cancer
// against 97.0% on a max-abs-scaled copy; a walkthrough). In the normalised coordinates w'_j =
// w_j / a_j, a_j = sqrt(m_j), the rule moves w'_j by its step; mapped back, that is a step of
// eta a_j on w_j, the implicit L2 included. The callers that know m_j pass the context this gives.
template <class Rule>
inline RuleContext FeatureContext(const RuleContext& c, float step_scale) {
  RuleContext scaled = c;
  if constexpr (Rule::kScaleFree) scaled.eta = c.eta * std::sqrt(step_scale);
  return scaled;
}

// The adaptive rules' implicit step with denominator D = sqrt(s) + eps and numerator n (eta times
// the loss part of the move): (w - n / D) / (1 + eta q / D), one division; with the L1 term a,
// S(w D - n, eta a) / (D + eta q).
inline float AdaptiveStep(float w, float n, float q, float d, const RuleContext& c) {
  return (w * d - n) / (d + c.eta * q);
}
template <class Write, bool kL1>
inline void AdaptiveMove(float& weight, float n, float q, float d, float a, const RuleContext& c) {
  if constexpr (kL1) {
    const float t = c.eta * a;
    Update<Write>(weight, [&](float w) { return SoftThreshold(w * d - n, t) / (d + c.eta * q); });
  } else {
    Update<Write>(weight, [&](float w) { return AdaptiveStep(w, n, q, d, c); });
  }
}
// The whole gradient the adaptive rules' statistics follow: l + q w (+ a sign(w)).
template <class Write, bool kL1>
inline float WholeGradient(const float& weight, float l, float q, float a) {
  const float w = Write::Load(weight);
  if constexpr (kL1) return l + q * w + (w > 0 ? a : w < 0 ? -a : 0.f);
  return l + q * w;
}

struct AdaGradRule {
  static constexpr bool kCumulativeL1 = false;
  static constexpr OptimizerKind kKind = OptimizerKind::kAdaGrad;
  static constexpr bool kScaleFree = true;
  static float Prepare(const RuleContext&, float q) { return q; }
  template <class Write, bool kL1 = false>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c,
                    float a = 0.f) {
    const float g = WholeGradient<Write, kL1>(p.weights[i], l, q, a);
    const float s = Update<Write>(p.state0[i], [&](float old) { return old + g * g; });
    const float d = std::sqrt(s) + c.epsilon, n = c.eta * l;
    AdaptiveMove<Write, kL1>(p.weights[i], n, q, d, a, c);
  }
};

struct RmsPropRule {
  static constexpr bool kCumulativeL1 = false;
  static constexpr OptimizerKind kKind = OptimizerKind::kRmsProp;
  static constexpr bool kScaleFree = true;
  static float Prepare(const RuleContext&, float q) { return q; }
  template <class Write, bool kL1 = false>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c,
                    float a = 0.f) {
    const float g = WholeGradient<Write, kL1>(p.weights[i], l, q, a);
    const float s = Update<Write>(p.state0[i],
                                  [&](float old) { return c.rho * old + (1.f - c.rho) * (g * g); });
    const float d = std::sqrt(s) + c.epsilon, n = c.eta * l;
    AdaptiveMove<Write, kL1>(p.weights[i], n, q, d, a, c);
  }
};

struct AdamRule {
  static constexpr bool kCumulativeL1 = false;
  static constexpr OptimizerKind kKind = OptimizerKind::kAdam;
  static constexpr bool kScaleFree = true;
  static float Prepare(const RuleContext&, float q) { return q; }
  template <class Write, bool kL1 = false>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c,
                    float a = 0.f) {
    const float g = WholeGradient<Write, kL1>(p.weights[i], l, q, a);
    const float m =
        Update<Write>(p.state0[i], [&](float old) { return c.beta1 * old + (1.f - c.beta1) * l; });
    const float v = Update<Write>(
        p.state1[i], [&](float old) { return c.beta2 * old + (1.f - c.beta2) * (g * g); });
    const float d = std::sqrt(v * c.correction2) + c.epsilon, n = c.eta * (m * c.correction1);
    AdaptiveMove<Write, kL1>(p.weights[i], n, q, d, a, c);
  }
};

// An optimiser's per-parameter state: StateCount(kind) arrays of `size` floats, zero to start.
struct OptimizerState {
  OptimizerState() = default;
  OptimizerState(OptimizerKind kind, uint64_t size, bool l1 = false) {
    if (StateCount(kind, l1) > 0) state0 = AlignedArray<float>::Zeroed(size);
    if (StateCount(kind, l1) > 1) state1 = AlignedArray<float>::Zeroed(size);
  }
  // The rule's view of `weights` with this state.
  ParamArrays With(float* weights) {
    return {weights, state0.empty() ? nullptr : state0.data(),
            state1.empty() ? nullptr : state1.data()};
  }
  AlignedArray<float> state0, state1;
};

// The rule's context at optimiser step t (1-based; Adam's bias correction counts these).
RuleContext MakeRuleContext(const OptimizerConfig& config, float eta, double t);

// Calls fn(Rule{}) with the rule type of `kind` (resolved: not kAuto): the one run-time choice,
// made once per run.
template <class Fn>
decltype(auto) WithRule(OptimizerKind kind, Fn&& fn) {
  switch (kind) {
    case OptimizerKind::kMomentum:
      return fn(MomentumRule{});
    case OptimizerKind::kNesterov:
      return fn(NesterovRule{});
    case OptimizerKind::kAdaGrad:
      return fn(AdaGradRule{});
    case OptimizerKind::kRmsProp:
      return fn(RmsPropRule{});
    case OptimizerKind::kAdam:
      return fn(AdamRule{});
    case OptimizerKind::kSgd:
    case OptimizerKind::kAuto:
      break;
  }
  return fn(SgdRule{});
}

}  // namespace parsgd
