// The sparse linear kernels with a path per vector unit (parsgd/kernel/isa.hpp): a row's scores
// and plain SGD's step over a row's weights, for one score (a dot product: binary and regression
// models) and for K scores (a feature's K weights side by side: softmax, one-vs-rest). The scalar
// path of each is the linear step's own loop (parsgd/model/linear/linear_step.hpp), which these
// replace where the path in use is a vector one.
//
// Shared weights. The one-score kernels read a row's weights with the CPU's gather and write them
// with its scatter (AVX-512) or one relaxed atomic store each (AVX2, which has no scatter). The
// K-score kernels read and write a feature's K weights with masked
// vector loads and stores. Each lane of these is its own aligned 4-byte access (a float never
// straddles a cache line), the same move a relaxed atomic load or store of a float compiles to on
// x86, and the compiler treats the intrinsics as opaque memory operations, never as plain loads it
// may merge or repeat. Between workers the races are Hogwild!'s: a lane may read a weight another
// worker is about to write, and a write may be lost.
//
// Numbers. Every step, and the K-score kernels' scores, are the scalar path's arithmetic,
// operation for operation and in its order (per score the entries are added in row order, the
// multiply and the add apart), so they give the same bits given the same inputs. The one-score
// dot product adds in another order (16 or 8 lanes, fused multiply-adds): it differs from the
// scalar path's by float rounding, |error| <= about n * 2^-24 * sum |value * w| (tested).
#pragma once

#include <cstdint>

#include "parsgd/kernel/isa.hpp"

namespace parsgd {

// A feature's constants for a run (8 bytes, read together).
struct FeatureRate {
  float step_scale;   // m_j
  float shrink_rate;  // m_j * r_j
};

// sum over e < n of value[e] * w[index[e]], for a model of fewer than 2^31 floats (KernelIsa).
float SparseDot(Isa isa, const float* w, const uint32_t* index, const float* value, uint32_t n);

// Plain SGD's step on one score's weights for the n entries of a row, without L1:
//   w_j <- (w_j - eta (d (x_j m_j))) / (1 + eta m_j r_j),
// (m_j, m_j r_j) = rates[j], or m_j = 1 and r_j = 0 when rates is null. Indices distinct.
void SgdSparseStep(Isa isa, float* w, const uint32_t* index, const float* value, uint32_t n,
                   const FeatureRate* rates, float d, float eta);

// y[index[e]] += value[e] * a for e < n: a row scaled into sums one thread owns (Newton's X^T u by
// rows). Plain loads and stores; indices distinct. Every path gives the scalar path's bits.
void SparseScaledAdd(Isa isa, float* y, const uint32_t* index, const float* value, uint32_t n,
                     float a);

// z[k] += sum over e < n of value[e] * w[index[e] * k_out + k], for k < k_out (z holds the biases
// on entry): the K scores of a row.
void RowScores(Isa isa, const float* w, const uint32_t* index, const float* value, uint32_t n,
               int k_out, float* z);

// Plain SGD's step on the K weights of each of a row's n features, without L1:
//   w_jk <- (w_jk - eta (d_k (x_j m_j))) / (1 + eta m_j r_j).
void SgdRowsStep(Isa isa, float* w, const uint32_t* index, const float* value, uint32_t n,
                 int k_out, const FeatureRate* rates, const float* d, float eta);

namespace kernel {
// Feature j's step input x_j m_j and shrink 1 / (1 + eta m_j r_j) (x_j and 1 without rates), as
// the linear step computes them: the steps' per-feature factors on every path.
struct FeatureStep {
  float input, shrink;
};
inline FeatureStep StepOf(const FeatureRate* rates, uint32_t j, float value, float eta) {
  if (rates == nullptr) return {value, 1.f};
  return {value * rates[j].step_scale, 1.f / (1.f + eta * rates[j].shrink_rate)};
}

// The paths, for the functions above to choose from (and the tests to compare).
float DotScalar(const float* w, const uint32_t* index, const float* value, uint32_t n);
float DotAvx2(const float* w, const uint32_t* index, const float* value, uint32_t n);
float DotAvx512(const float* w, const uint32_t* index, const float* value, uint32_t n);
void SgdStepScalar(float* w, const uint32_t* index, const float* value, uint32_t n,
                   const FeatureRate* rates, float d, float eta);
void SgdStepAvx2(float* w, const uint32_t* index, const float* value, uint32_t n,
                 const FeatureRate* rates, float d, float eta);
void SgdStepAvx512(float* w, const uint32_t* index, const float* value, uint32_t n,
                   const FeatureRate* rates, float d, float eta);
void ScaledAddScalar(float* y, const uint32_t* index, const float* value, uint32_t n, float a);
void ScaledAddAvx2(float* y, const uint32_t* index, const float* value, uint32_t n, float a);
void ScaledAddAvx512(float* y, const uint32_t* index, const float* value, uint32_t n, float a);
void RowScoresScalar(const float* w, const uint32_t* index, const float* value, uint32_t n,
                     int k_out, float* z);
void RowScoresAvx2(const float* w, const uint32_t* index, const float* value, uint32_t n,
                   int k_out, float* z);
void RowScoresAvx512(const float* w, const uint32_t* index, const float* value, uint32_t n,
                     int k_out, float* z);
void SgdRowsStepScalar(float* w, const uint32_t* index, const float* value, uint32_t n, int k_out,
                       const FeatureRate* rates, const float* d, float eta);
void SgdRowsStepAvx2(float* w, const uint32_t* index, const float* value, uint32_t n, int k_out,
                     const FeatureRate* rates, const float* d, float eta);
void SgdRowsStepAvx512(float* w, const uint32_t* index, const float* value, uint32_t n, int k_out,
                       const FeatureRate* rates, const float* d, float eta);
}  // namespace kernel

inline float SparseDot(Isa isa, const float* w, const uint32_t* index, const float* value,
                       uint32_t n) {
  switch (isa) {
    case Isa::kAvx512:
      return kernel::DotAvx512(w, index, value, n);
    case Isa::kAvx2:
      return kernel::DotAvx2(w, index, value, n);
    case Isa::kScalar:
      break;
  }
  return kernel::DotScalar(w, index, value, n);
}

inline void SgdSparseStep(Isa isa, float* w, const uint32_t* index, const float* value,
                          uint32_t n, const FeatureRate* rates, float d, float eta) {
  switch (isa) {
    case Isa::kAvx512:
      return kernel::SgdStepAvx512(w, index, value, n, rates, d, eta);
    case Isa::kAvx2:
      return kernel::SgdStepAvx2(w, index, value, n, rates, d, eta);
    case Isa::kScalar:
      break;
  }
  kernel::SgdStepScalar(w, index, value, n, rates, d, eta);
}

inline void SparseScaledAdd(Isa isa, float* y, const uint32_t* index, const float* value,
                            uint32_t n, float a) {
  switch (isa) {
    case Isa::kAvx512:
      return kernel::ScaledAddAvx512(y, index, value, n, a);
    case Isa::kAvx2:
      return kernel::ScaledAddAvx2(y, index, value, n, a);
    case Isa::kScalar:
      break;
  }
  kernel::ScaledAddScalar(y, index, value, n, a);
}

inline void RowScores(Isa isa, const float* w, const uint32_t* index, const float* value,
                      uint32_t n, int k_out, float* z) {
  switch (isa) {
    case Isa::kAvx512:
      return kernel::RowScoresAvx512(w, index, value, n, k_out, z);
    case Isa::kAvx2:
      return kernel::RowScoresAvx2(w, index, value, n, k_out, z);
    case Isa::kScalar:
      break;
  }
  kernel::RowScoresScalar(w, index, value, n, k_out, z);
}

inline void SgdRowsStep(Isa isa, float* w, const uint32_t* index, const float* value, uint32_t n,
                        int k_out, const FeatureRate* rates, const float* d, float eta) {
  switch (isa) {
    case Isa::kAvx512:
      return kernel::SgdRowsStepAvx512(w, index, value, n, k_out, rates, d, eta);
    case Isa::kAvx2:
      return kernel::SgdRowsStepAvx2(w, index, value, n, k_out, rates, d, eta);
    case Isa::kScalar:
      break;
  }
  kernel::SgdRowsStepScalar(w, index, value, n, k_out, rates, d, eta);
}

}  // namespace parsgd
