// The sparse kernels' AVX-512 path: 16 lanes, masked tails, gathers and scatters. Compiled for
// AVX-512 by the functions' target attribute alone (the file's other code, and every header it
// includes, stays baseline x86-64); called only where CpuSupports(Isa::kAvx512).
#include <immintrin.h>

#include "parsgd/kernel/sparse_kernels.hpp"

#define PARSGD_AVX512 [[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]]

namespace parsgd::kernel {

namespace {
PARSGD_AVX512 inline __mmask16 Tail(uint32_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xffffu : (1u << left) - 1u);
}
// The unmasked gather and the horizontal sum, written without the intrinsics that start from an
// undefined register (g++ 12 warns that it is used uninitialised).
PARSGD_AVX512 inline __m512 Gather(__m512i i, const float* w) {
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xffff, i, w, 4);
}
PARSGD_AVX512 inline float Sum(__m512 v) {
  const __m256 half = _mm256_add_ps(_mm512_mask_extractf32x8_ps(_mm256_setzero_ps(), 0xff, v, 0),
                                    _mm512_mask_extractf32x8_ps(_mm256_setzero_ps(), 0xff, v, 1));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(half), _mm256_extractf128_ps(half, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// The FeatureRates of 16 features, gathered whole (8 bytes, 8 lanes of 64 bits at a time: half the
// element loads of gathering the two floats apart), then split into m_j and m_j r_j.
PARSGD_AVX512 inline void GatherRates(const FeatureRate* rates, __m512i i, __mmask16 m,
                                      __m512& scale, __m512& shrink_rate) {
  const __m512d lo =
      _mm512_mask_i32gather_pd(_mm512_setzero_pd(), static_cast<__mmask8>(m),
                               _mm512_maskz_extracti64x4_epi64(0xff, i, 0), rates, 8);
  const __m512d hi =
      _mm512_mask_i32gather_pd(_mm512_setzero_pd(), static_cast<__mmask8>(m >> 8),
                               _mm512_maskz_extracti64x4_epi64(0xff, i, 1), rates, 8);
  const __m512i even =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  scale = _mm512_permutex2var_ps(_mm512_castpd_ps(lo), even, _mm512_castpd_ps(hi));
  shrink_rate = _mm512_permutex2var_ps(_mm512_castpd_ps(lo), odd, _mm512_castpd_ps(hi));
}
}  // namespace

PARSGD_AVX512 float DotAvx512(const float* w, const uint32_t* index, const float* value,
                              uint32_t n) {
  // Two accumulators: a gather's latency is long, and the fused adds of one chain wait on it.
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  uint32_t e = 0;
  for (; e + 32 <= n; e += 32) {
    const __m512i i0 = _mm512_loadu_si512(index + e);
    const __m512i i1 = _mm512_loadu_si512(index + e + 16);
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(value + e), Gather(i0, w), acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(value + e + 16), Gather(i1, w), acc1);
  }
  for (; e < n; e += 16) {
    const __mmask16 m = Tail(n - e);
    const __m512i i = _mm512_maskz_loadu_epi32(m, index + e);
    const __m512 g = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, i, w, 4);
    acc0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, value + e), g, acc0);
  }
  return Sum(_mm512_add_ps(acc0, acc1));
}

PARSGD_AVX512 void SgdStepAvx512(float* w, const uint32_t* index, const float* value, uint32_t n,
                                 const FeatureRate* rates, float d, float eta) {
  const __m512 vd = _mm512_set1_ps(d), veta = _mm512_set1_ps(eta), one = _mm512_set1_ps(1.f);
  const __m512 zero = _mm512_setzero_ps();
  for (uint32_t e = 0; e < n; e += 16) {
    const __mmask16 m = Tail(n - e);
    const __m512i i = _mm512_maskz_loadu_epi32(m, index + e);
    __m512 input = _mm512_maskz_loadu_ps(m, value + e);
    const __m512 old = _mm512_mask_i32gather_ps(zero, m, i, w, 4);
    __m512 next;
    if (rates != nullptr) {
      __m512 scale, q;
      GatherRates(rates, i, m, scale, q);
      input = _mm512_mul_ps(input, scale);
      const __m512 shrink = _mm512_div_ps(one, _mm512_add_ps(one, _mm512_mul_ps(veta, q)));
      next = _mm512_mul_ps(
          _mm512_sub_ps(old, _mm512_mul_ps(veta, _mm512_mul_ps(vd, input))), shrink);
    } else {
      next = _mm512_sub_ps(old, _mm512_mul_ps(veta, _mm512_mul_ps(vd, input)));
    }
    _mm512_mask_i32scatter_ps(w, m, i, next, 4);
  }
}

PARSGD_AVX512 void ScaledAddAvx512(float* y, const uint32_t* index, const float* value,
                                   uint32_t n, float a) {
  const __m512 va = _mm512_set1_ps(a);
  for (uint32_t e = 0; e < n; e += 16) {
    const __mmask16 m = Tail(n - e);
    const __m512i i = _mm512_maskz_loadu_epi32(m, index + e);
    const __m512 old = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, i, y, 4);
    const __m512 next = _mm512_add_ps(old, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, value + e), va));
    _mm512_mask_i32scatter_ps(y, m, i, next, 4);
  }
}

// The K-score kernels: a feature's K weights in blocks of 16 lanes, the last one masked.
PARSGD_AVX512 void RowScoresAvx512(const float* w, const uint32_t* index, const float* value,
                                   uint32_t n, int k_out, float* z) {
  for (int k0 = 0; k0 < k_out; k0 += 16) {
    const __mmask16 m = Tail(static_cast<uint32_t>(k_out - k0));
    __m512 sum = _mm512_maskz_loadu_ps(m, z + k0);
    for (uint32_t e = 0; e < n; ++e) {
      const float* wj = w + uint64_t{index[e]} * k_out + k0;
      // Multiply, then add: the scalar path's rounding.
      sum = _mm512_add_ps(sum,
                          _mm512_mul_ps(_mm512_set1_ps(value[e]), _mm512_maskz_loadu_ps(m, wj)));
    }
    _mm512_mask_storeu_ps(z + k0, m, sum);
  }
}

PARSGD_AVX512 void SgdRowsStepAvx512(float* w, const uint32_t* index, const float* value,
                                     uint32_t n, int k_out, const FeatureRate* rates,
                                     const float* d, float eta) {
  const __m512 veta = _mm512_set1_ps(eta);
  // Up to kChunk features at a time: every load of a chunk before its first store. A masked store
  // covers 64 bytes whatever its mask, so the next feature's load (its K weights start where this
  // feature's end) would wait for the store to reach the cache before it could read.
  constexpr uint32_t kChunk = 8;
  for (int k0 = 0; k0 < k_out; k0 += 16) {
    const __mmask16 m = Tail(static_cast<uint32_t>(k_out - k0));
    const __m512 vd = _mm512_maskz_loadu_ps(m, d + k0);
    for (uint32_t begin = 0; begin < n; begin += kChunk) {
      const uint32_t count = n - begin < kChunk ? n - begin : kChunk;
      __m512 next[kChunk];
      for (uint32_t c = 0; c < count; ++c) {
        const uint32_t e = begin + c, j = index[e];
        const FeatureStep f = StepOf(rates, j, value[e], eta);
        const __m512 step = _mm512_mul_ps(veta, _mm512_mul_ps(vd, _mm512_set1_ps(f.input)));
        next[c] = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, w + uint64_t{j} * k_out + k0), step);
        if (rates != nullptr) next[c] = _mm512_mul_ps(next[c], _mm512_set1_ps(f.shrink));
      }
      for (uint32_t c = 0; c < count; ++c) {
        _mm512_mask_storeu_ps(w + uint64_t{index[begin + c]} * k_out + k0, m, next[c]);
      }
    }
  }
}

}  // namespace parsgd::kernel
