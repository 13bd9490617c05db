// Internal: how the MLP's runners apply an optimiser rule to a range of its flat parameters
// (model/mlp/mlp_runner.cpp, and the model partitions of model/mlp/partition/partitions.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "mlp_runner.hpp"
#include "parsgd/optim/optimizer.hpp"
#include "parsgd/scheme/write_policy.hpp"

namespace parsgd {

// Calls fn(begin, end, is_bias) for the parts of [begin, end) that are one layer's weights or
// biases.
template <class Fn>
void ForEachSegment(const std::vector<MlpLayer>& layers, uint64_t begin, uint64_t end, Fn fn) {
  for (const MlpLayer& l : layers) {
    const uint64_t bias_end = l.bias_at + l.outputs;
    const uint64_t wb = std::max(begin, l.weights_at), we = std::min(end, l.bias_at);
    if (wb < we) fn(wb, we, false);
    const uint64_t bb = std::max(begin, l.bias_at), be = std::min(end, bias_end);
    if (bb < be) fn(bb, be, true);
  }
}

// The rule on coordinates [begin, end) with gradients g (indexed as the parameters). Hogwild!
// copies blocks out with relaxed loads, updates them with plain (vectorised) arithmetic and writes
// them back with relaxed stores: each coordinate is still one racy read-modify-write. g++ neither
// vectorises nor unrolls a loop of atomic accesses by itself; unrolled on request they ran 1.8-2.2x
// faster (bench/README.md, "Hogwild! on the MLP").
template <class Rule, class Write>
void ApplyRange(const ParamArrays& p, const float* g, uint64_t begin, uint64_t end, float reg,
                const RuleContext& c) {
  if constexpr (std::is_same_v<Write, StoreWrite>) {
    constexpr uint64_t kBlock = 256;
    float w[kBlock], s0[kBlock], s1[kBlock];
    auto load = [](float* to, const float* from, uint64_t n) {
#pragma GCC unroll 8
      for (uint64_t i = 0; i < n; ++i) to[i] = LoadRelaxed(from[i]);
    };
    auto store = [](float* to, const float* from, uint64_t n) {
#pragma GCC unroll 8
      for (uint64_t i = 0; i < n; ++i) {
        std::atomic_ref<float>(to[i]).store(from[i], std::memory_order_relaxed);
      }
    };
    for (uint64_t b = begin; b < end; b += kBlock) {
      const uint64_t n = std::min(kBlock, end - b);
      load(w, p.weights + b, n);
      if (p.state0) load(s0, p.state0 + b, n);
      if (p.state1) load(s1, p.state1 + b, n);
      const ParamArrays local{w, p.state0 ? s0 : nullptr, p.state1 ? s1 : nullptr};
      for (uint64_t i = 0; i < n; ++i) Rule::template Apply<PlainWrite>(local, i, g[b + i], reg, c);
      store(p.weights + b, w, n);
      if (p.state0) store(p.state0 + b, s0, n);
      if (p.state1) store(p.state1 + b, s1, n);
    }
  } else {
    for (uint64_t i = begin; i < end; ++i) Rule::template Apply<Write>(p, i, g[i], reg, c);
  }
}

// The rule on coordinates [begin, end) of the parameters `p` of the MLP `model` (its layers and
// L2 strength, on weights only) with gradients g.
template <class Rule, class Write>
void ApplyGradient(const MlpParams& model, const ParamArrays& p, const float* g, uint64_t begin,
                   uint64_t end, const RuleContext& rc) {
  const float weight_reg = Rule::Prepare(rc, model.l2), bias_reg = Rule::Prepare(rc, 0.f);
  ForEachSegment(*model.layers, begin, end, [&](uint64_t b, uint64_t e, bool bias) {
    ApplyRange<Rule, Write>(p, g, b, e, bias ? bias_reg : weight_reg, rc);
  });
}

}  // namespace parsgd
