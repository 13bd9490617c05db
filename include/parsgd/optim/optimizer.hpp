// Optimisers: the per-coordinate update rules, with the state each keeps per parameter.
//
// A rule sees one parameter at a time: its weight w, its state (0 to 2 floats, in arrays parallel
// to the weights), the loss gradient l of that coordinate (for a sample, dloss/dz_k * x_j * m_j; for a
// minibatch, the mean of those), and the coordinate's L2 term. Every rule reads and writes each of
// its variables through the scheme's write policy, so under Hogwild! the state is shared with the
// same relaxed-atomic discipline as the weights.
//
// L2 enters differently by rule, so that every optimiser minimises the same objective:
//  - sgd takes it implicitly, w <- (w - eta l) / (1 + eta q), q = m_j r_j times the fraction of the
//    minibatch that touched the feature: stable for any step size (see linear_step.hpp);
//  - the others add it to the gradient, g = l + q w (torch.optim's weight_decay convention), and
//    apply their rule to g: their fixed point is the objective's optimum.
// Sparse data: only the coordinates a sample (or minibatch) touches are updated, state included.
// This is the "lazy" variant (as TensorFlow's LazyAdam and PyTorch's SparseAdam): the decay of the
// momentum or moment estimates of untouched coordinates is skipped, not applied later. On data where
// every feature is present in every row the rules are the dense ones.
#pragma once

#include <cmath>
#include <cstdint>

#include "parsgd/scheme/scheme.hpp"
#include "parsgd/util/array.hpp"
#include "parsgd/util/named.hpp"

namespace parsgd {

enum class OptimizerKind { kAuto, kSgd, kMomentum, kNesterov, kAdaGrad, kRmsProp, kAdam };

inline constexpr Named<OptimizerKind> kOptimizerKinds[] = {
    {OptimizerKind::kAuto, "auto", "sgd for the linear models, momentum for mlp"},
    {OptimizerKind::kSgd, "sgd", "w -= eta g (L2 taken implicitly)"},
    {OptimizerKind::kMomentum, "momentum", "v = mu v + g; w -= eta v (heavy ball, Polyak 1964)"},
    {OptimizerKind::kNesterov, "nesterov", "v = mu v + g; w -= eta (g + mu v) (Sutskever et al. 2013)"},
    {OptimizerKind::kAdaGrad, "adagrad", "s += g^2; w -= eta g / (sqrt(s) + eps) (Duchi et al. 2011)"},
    {OptimizerKind::kRmsProp, "rmsprop", "s = rho s + (1-rho) g^2; w -= eta g / (sqrt(s) + eps)"},
    {OptimizerKind::kAdam, "adam", "Adam with bias correction (Kingma and Ba 2015)"},
};

// Hyper-parameters, with the defaults of torch.optim (AdaGrad's epsilon too, for comparability).
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kAuto;  // the trainer resolves it before any rule is chosen
  double momentum = 0.9;   // momentum, nesterov
  double rho = 0.99;       // rmsprop: decay of the squared-gradient average
  double beta1 = 0.9;      // adam
  double beta2 = 0.999;    // adam
  double epsilon = 1e-8;   // adagrad (torch: 1e-10), rmsprop, adam
};

// Floats of state per parameter.
constexpr int StateCount(OptimizerKind kind) {
  return kind == OptimizerKind::kSgd || kind == OptimizerKind::kAuto ? 0
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
};

// The relaxed (or compare-and-swap) update of one variable: x <- f(x); returns the value written.
template <class Write, class F>
inline float Update(float& x, F f) {
  return Write::Modify(x, f);
}

struct SgdRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kSgd;
  // The per-entry L2 factor given q (vectorisable: the loop over a chunk's entries divides at once).
  static float Prepare(float eta, float q) { return 1.f / (1.f + eta * q); }
  template <class Write>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float shrink, const RuleContext& c) {
    const float step = c.eta * l;
    Update<Write>(p.weights[i], [&](float w) { return (w - step) * shrink; });
  }
};

struct MomentumRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kMomentum;
  static float Prepare(float, float q) { return q; }
  template <class Write>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c) {
    const float g = l + q * Write::Load(p.weights[i]);
    const float v = Update<Write>(p.state0[i], [&](float old) { return c.momentum * old + g; });
    Update<Write>(p.weights[i], [&](float w) { return w - c.eta * v; });
  }
};

struct NesterovRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kNesterov;
  static float Prepare(float, float q) { return q; }
  template <class Write>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c) {
    const float g = l + q * Write::Load(p.weights[i]);
    const float v = Update<Write>(p.state0[i], [&](float old) { return c.momentum * old + g; });
    const float step = c.eta * (g + c.momentum * v);
    Update<Write>(p.weights[i], [&](float w) { return w - step; });
  }
};

struct AdaGradRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kAdaGrad;
  static float Prepare(float, float q) { return q; }
  template <class Write>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c) {
    const float g = l + q * Write::Load(p.weights[i]);
    const float s = Update<Write>(p.state0[i], [&](float old) { return old + g * g; });
    const float step = c.eta * g / (std::sqrt(s) + c.epsilon);
    Update<Write>(p.weights[i], [&](float w) { return w - step; });
  }
};

struct RmsPropRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kRmsProp;
  static float Prepare(float, float q) { return q; }
  template <class Write>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c) {
    const float g = l + q * Write::Load(p.weights[i]);
    const float s =
        Update<Write>(p.state0[i], [&](float old) { return c.rho * old + (1.f - c.rho) * (g * g); });
    const float step = c.eta * g / (std::sqrt(s) + c.epsilon);
    Update<Write>(p.weights[i], [&](float w) { return w - step; });
  }
};

struct AdamRule {
  static constexpr OptimizerKind kKind = OptimizerKind::kAdam;
  static float Prepare(float, float q) { return q; }
  template <class Write>
  static void Apply(const ParamArrays& p, uint64_t i, float l, float q, const RuleContext& c) {
    const float g = l + q * Write::Load(p.weights[i]);
    const float m =
        Update<Write>(p.state0[i], [&](float old) { return c.beta1 * old + (1.f - c.beta1) * g; });
    const float v = Update<Write>(
        p.state1[i], [&](float old) { return c.beta2 * old + (1.f - c.beta2) * (g * g); });
    const float step = c.eta * (m * c.correction1) / (std::sqrt(v * c.correction2) + c.epsilon);
    Update<Write>(p.weights[i], [&](float w) { return w - step; });
  }
};

// An optimiser's per-parameter state: StateCount(kind) arrays of `size` floats, zero to start.
struct OptimizerState {
  OptimizerState() = default;
  OptimizerState(OptimizerKind kind, uint64_t size) {
    if (StateCount(kind) > 0) state0 = AlignedArray<float>::Zeroed(size);
    if (StateCount(kind) > 1) state1 = AlignedArray<float>::Zeroed(size);
  }
  // The rule's view of `weights` with this state.
  ParamArrays With(float* weights) {
    return {weights, state0.empty() ? nullptr : state0.data(), state1.empty() ? nullptr : state1.data()};
  }
  AlignedArray<float> state0, state1;
};

// The rule's context at optimiser step t (1-based; Adam's bias correction counts these).
RuleContext MakeRuleContext(const OptimizerConfig& config, float eta, double t);

// Calls fn(Rule{}) with the rule type of `kind` (resolved: not kAuto): the one run-time choice, made
// once per run.
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
