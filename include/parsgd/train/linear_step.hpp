// One SGD step of a linear model on one sample: the inner loop of every scheme. Header-only so it
// inlines into the epoch loop and into the kernel benchmarks.
//
// L2 regularisation costs O(nonzeros): only the coordinates the sample touches are shrunk, by the
// per-feature rate r_j = l2 * n / d_j, where d_j is the number of training rows that have feature j.
// Over a uniformly drawn row this regulariser is (l2 / 2) ||w||^2 in expectation, exactly the
// objective's, and untouched coordinates cost nothing (the Hogwild! paper's sparse separable form).
//
// Each feature may also carry a step multiplier m_j (a diagonal preconditioner: with --normalize
// maxabs, m_j = 1 / max_i |x_ij|^2, which is plain SGD on features scaled to [-1, 1], expressed on
// the unscaled weights). The update of a touched coordinate is
//     w_j <- (w_j - eta m_j g x_j) / (1 + eta m_j r_j),
// the regulariser taken implicitly: stable for any step size, even on rare features where r_j is
// large.
#pragma once

#include <algorithm>
#include <cstdint>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/loss.hpp"
#include "parsgd/scheme/scheme.hpp"

namespace parsgd {

// A feature's constants for a run (8 bytes, read together).
struct FeatureRate {
  float step_scale;   // m_j
  float shrink_rate;  // m_j * r_j
};

// What a step needs to know about the shared parameters.
struct LinearParams {
  float* weights;            // (features + 1) * outputs, layout of LinearModel
  uint64_t features;         // the bias block starts at features * outputs
  int outputs;               // K
  const FeatureRate* rates;  // per feature; nullptr: m_j = 1 and r_j = 0 for all j
};

// Binary head: one score, a margin loss from loss.hpp.
template <class Loss>
struct BinaryHead {
  static constexpr int kOutputs = 1;
  // Replaces z[0] by d loss / dz and returns the loss.
  static double LossAndGradient(float* z, int, float target) {
    return Loss::ValueAndDerivative(z[0], target, z);
  }
};

// Softmax head: K scores, K known at run time.
struct SoftmaxHead {
  static constexpr int kOutputs = 0;  // dynamic
  static double LossAndGradient(float* z, int k, float target) {
    return SoftmaxLoss::ValueAndGradient(z, k, static_cast<int>(target), z);
  }
};

// Scores z (outputs floats) of row x from the shared weights, read with relaxed loads.
template <int kOutputs>
inline void LinearScores(const LinearParams& p, const SparseRow& x, float* z) {
  if constexpr (kOutputs == 1) {
    // Four partial sums in registers: the adds of one row do not wait on each other.
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t e = 0;
    for (; e + 4 <= x.nnz; e += 4) {
      s0 += x.value[e] * LoadRelaxed(p.weights[x.index[e]]);
      s1 += x.value[e + 1] * LoadRelaxed(p.weights[x.index[e + 1]]);
      s2 += x.value[e + 2] * LoadRelaxed(p.weights[x.index[e + 2]]);
      s3 += x.value[e + 3] * LoadRelaxed(p.weights[x.index[e + 3]]);
    }
    for (; e < x.nnz; ++e) s0 += x.value[e] * LoadRelaxed(p.weights[x.index[e]]);
    z[0] = LoadRelaxed(p.weights[p.features]) + ((s0 + s1) + (s2 + s3));
  } else {
    const int k_out = kOutputs > 0 ? kOutputs : p.outputs;
    const float* bias = p.weights + p.features * k_out;
    for (int k = 0; k < k_out; ++k) z[k] = LoadRelaxed(bias[k]);
    for (uint32_t e = 0; e < x.nnz; ++e) {
      const float v = x.value[e];
      const float* wj = p.weights + static_cast<uint64_t>(x.index[e]) * k_out;
      for (int k = 0; k < k_out; ++k) z[k] += v * LoadRelaxed(wj[k]);
    }
  }
}

// Applies w_jk <- (w_jk + step_k m_j x_j) / (1 + eta m_j r_j) to the touched coordinates and
// b_k += step_k, where step_k = -eta * g_k is passed in `step`.
template <int kOutputs, class Write, class BiasWrite>
inline void LinearUpdate(const LinearParams& p, const SparseRow& x, const float* step, float eta) {
  const int k_out = kOutputs > 0 ? kOutputs : p.outputs;
  // The per-entry factors of a chunk are computed first, the shrinks in a loop of independent
  // divisions the compiler vectorises, then applied.
  constexpr uint32_t kChunk = 64;
  float input[kChunk], shrink[kChunk];
  for (uint32_t begin = 0; begin < x.nnz; begin += kChunk) {
    const uint32_t n = std::min(kChunk, x.nnz - begin);
    const uint32_t* index = x.index + begin;
    if (p.rates) {
      for (uint32_t e = 0; e < n; ++e) {
        const FeatureRate rate = p.rates[index[e]];
        input[e] = x.value[begin + e] * rate.step_scale;
        shrink[e] = rate.shrink_rate;
      }
      for (uint32_t e = 0; e < n; ++e) shrink[e] = 1.f / (1.f + eta * shrink[e]);
    } else {
      for (uint32_t e = 0; e < n; ++e) {
        input[e] = x.value[begin + e];
        shrink[e] = 1.f;
      }
    }
    for (uint32_t e = 0; e < n; ++e) {
      float* wj = p.weights + static_cast<uint64_t>(index[e]) * k_out;
      for (int k = 0; k < k_out; ++k) Write::Apply(wj[k], step[k] * input[e], shrink[e]);
    }
  }
  float* bias = p.weights + p.features * k_out;
  for (int k = 0; k < k_out; ++k) BiasWrite::Apply(bias[k], step[k], 1.f);
}

// One step on sample (x, target) with step size eta; returns the sample's loss before the step.
// z is scratch for `outputs` floats. Holds the scheme's guard from the first read to the last write.
template <class Head, class Scheme>
inline double LinearSgdStep(Scheme& scheme, const LinearParams& p, const SparseRow& x,
                            float target, float eta, float* z) {
  constexpr int kOut = Head::kOutputs;
  const int k_out = kOut > 0 ? kOut : p.outputs;
  typename Scheme::Guard guard(scheme, x);
  LinearScores<kOut>(p, x, z);
  const double loss = Head::LossAndGradient(z, k_out, target);
  bool any = p.rates != nullptr;
  for (int k = 0; k < k_out; ++k) {
    z[k] *= -eta;
    any |= (z[k] != 0.f);
  }
  // A zero gradient without per-feature rates (hinge beyond the margin, no L2) changes nothing.
  if (any) LinearUpdate<kOut, typename Scheme::Write, typename Scheme::BiasWrite>(p, x, z, eta);
  return loss;
}

}  // namespace parsgd
