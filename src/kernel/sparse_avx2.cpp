// The sparse kernels' AVX2 path: 8 lanes, masked tails, gathers; AVX2 has no scatter, so the
// step's new weights are stored one relaxed atomic store each. Compiled for AVX2 by the functions'
// target attribute alone; called only where CpuSupports(Isa::kAvx2).
#include <immintrin.h>

#include <atomic>

#include "parsgd/kernel/sparse_kernels.hpp"

#define PARSGD_AVX2 [[gnu::target("avx2,fma")]]

namespace parsgd::kernel {

namespace {
// Lanes below `left` all ones (the mask of a tail).
PARSGD_AVX2 inline __m256i Tail(uint32_t left) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left < 8 ? left : 8)), lanes);
}
}  // namespace

PARSGD_AVX2 float DotAvx2(const float* w, const uint32_t* index, const float* value, uint32_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  uint32_t e = 0;
  for (; e + 16 <= n; e += 16) {
    const __m256i i0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + e));
    const __m256i i1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + e + 8));
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(value + e), _mm256_i32gather_ps(w, i0, 4), acc0);
    acc1 =
        _mm256_fmadd_ps(_mm256_loadu_ps(value + e + 8), _mm256_i32gather_ps(w, i1, 4), acc1);
  }
  for (; e < n; e += 8) {
    const __m256i m = Tail(n - e);
    const __m256i i = _mm256_maskload_epi32(reinterpret_cast<const int*>(index + e), m);
    const __m256 g =
        _mm256_mask_i32gather_ps(_mm256_setzero_ps(), w, i, _mm256_castsi256_ps(m), 4);
    acc0 = _mm256_fmadd_ps(_mm256_maskload_ps(value + e, m), g, acc0);
  }
  const __m256 acc = _mm256_add_ps(acc0, acc1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

PARSGD_AVX2 void SgdStepAvx2(float* w, const uint32_t* index, const float* value, uint32_t n,
                             const FeatureRate* rates, float d, float eta) {
  const __m256 vd = _mm256_set1_ps(d), veta = _mm256_set1_ps(eta), one = _mm256_set1_ps(1.f);
  const __m256 zero = _mm256_setzero_ps();
  const float* scales = rates != nullptr ? &rates[0].step_scale : nullptr;
  const float* shrinks = rates != nullptr ? &rates[0].shrink_rate : nullptr;
  alignas(32) float moved[8];
  for (uint32_t e = 0; e < n; e += 8) {
    const uint32_t lanes = n - e < 8 ? n - e : 8;
    const __m256i mi = Tail(lanes);
    const __m256 m = _mm256_castsi256_ps(mi);
    const __m256i i = _mm256_maskload_epi32(reinterpret_cast<const int*>(index + e), mi);
    __m256 input = _mm256_maskload_ps(value + e, mi);
    const __m256 old = _mm256_mask_i32gather_ps(zero, w, i, m, 4);
    __m256 next;
    if (rates != nullptr) {
      input = _mm256_mul_ps(input, _mm256_mask_i32gather_ps(one, scales, i, m, 8));
      const __m256 q = _mm256_mask_i32gather_ps(zero, shrinks, i, m, 8);
      const __m256 shrink = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(veta, q)));
      next = _mm256_mul_ps(
          _mm256_sub_ps(old, _mm256_mul_ps(veta, _mm256_mul_ps(vd, input))), shrink);
    } else {
      next = _mm256_sub_ps(old, _mm256_mul_ps(veta, _mm256_mul_ps(vd, input)));
    }
    _mm256_store_ps(moved, next);
    for (uint32_t k = 0; k < lanes; ++k) {
      std::atomic_ref<float>(w[index[e + k]]).store(moved[k], std::memory_order_relaxed);
    }
  }
}

PARSGD_AVX2 void ScaledAddAvx2(float* y, const uint32_t* index, const float* value, uint32_t n,
                               float a) {
  const __m256 va = _mm256_set1_ps(a);
  alignas(32) float next[8];
  for (uint32_t e = 0; e < n; e += 8) {
    const uint32_t lanes = n - e < 8 ? n - e : 8;
    const __m256i m = Tail(lanes);
    const __m256i i = _mm256_maskload_epi32(reinterpret_cast<const int*>(index + e), m);
    const __m256 old =
        _mm256_mask_i32gather_ps(_mm256_setzero_ps(), y, i, _mm256_castsi256_ps(m), 4);
    _mm256_store_ps(next, _mm256_add_ps(old, _mm256_mul_ps(_mm256_maskload_ps(value + e, m), va)));
    for (uint32_t k = 0; k < lanes; ++k) y[index[e + k]] = next[k];
  }
}

// The K-score kernels: a feature's K weights in blocks of 8 lanes, the last one masked.
PARSGD_AVX2 void RowScoresAvx2(const float* w, const uint32_t* index, const float* value,
                               uint32_t n, int k_out, float* z) {
  for (int k0 = 0; k0 < k_out; k0 += 8) {
    const __m256i m = Tail(static_cast<uint32_t>(k_out - k0));
    __m256 sum = _mm256_maskload_ps(z + k0, m);
    for (uint32_t e = 0; e < n; ++e) {
      const float* wj = w + uint64_t{index[e]} * k_out + k0;
      // Multiply, then add: the scalar path's rounding.
      sum = _mm256_add_ps(sum,
                          _mm256_mul_ps(_mm256_set1_ps(value[e]), _mm256_maskload_ps(wj, m)));
    }
    _mm256_maskstore_ps(z + k0, m, sum);
  }
}

PARSGD_AVX2 void SgdRowsStepAvx2(float* w, const uint32_t* index, const float* value, uint32_t n,
                                 int k_out, const FeatureRate* rates, const float* d, float eta) {
  const __m256 veta = _mm256_set1_ps(eta);
  for (int k0 = 0; k0 < k_out; k0 += 8) {
    const __m256i m = Tail(static_cast<uint32_t>(k_out - k0));
    const __m256 vd = _mm256_maskload_ps(d + k0, m);
    for (uint32_t e = 0; e < n; ++e) {
      const uint32_t j = index[e];
      const FeatureStep f = StepOf(rates, j, value[e], eta);
      float* wj = w + uint64_t{j} * k_out + k0;
      const __m256 step = _mm256_mul_ps(veta, _mm256_mul_ps(vd, _mm256_set1_ps(f.input)));
      __m256 next = _mm256_sub_ps(_mm256_maskload_ps(wj, m), step);
      if (rates != nullptr) next = _mm256_mul_ps(next, _mm256_set1_ps(f.shrink));
      _mm256_maskstore_ps(wj, m, next);
    }
  }
}

}  // namespace parsgd::kernel
