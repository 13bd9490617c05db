// The sparse kernels' scalar path: the linear step's arithmetic (linear_step.hpp), for callers
// outside it and as the reference the vector paths are tested against.
#include <atomic>

#include "parsgd/kernel/sparse_kernels.hpp"

namespace parsgd::kernel {

namespace {
float Load(const float* w, uint32_t j) {
  return std::atomic_ref<float>(const_cast<float&>(w[j])).load(std::memory_order_relaxed);
}
}  // namespace

float DotScalar(const float* w, const uint32_t* index, const float* value, uint32_t n) {
  // Four partial sums, added as LinearScores adds them.
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  uint32_t e = 0;
  for (; e + 4 <= n; e += 4) {
    s0 += value[e] * Load(w, index[e]);
    s1 += value[e + 1] * Load(w, index[e + 1]);
    s2 += value[e + 2] * Load(w, index[e + 2]);
    s3 += value[e + 3] * Load(w, index[e + 3]);
  }
  for (; e < n; ++e) s0 += value[e] * Load(w, index[e]);
  return (s0 + s1) + (s2 + s3);
}

void SgdStepScalar(float* w, const uint32_t* index, const float* value, uint32_t n,
                   const FeatureRate* rates, float d, float eta) {
  for (uint32_t e = 0; e < n; ++e) {
    const uint32_t j = index[e];
    const FeatureStep f = StepOf(rates, j, value[e], eta);
    const float step = eta * (d * f.input);
    std::atomic_ref<float> a(w[j]);
    a.store((a.load(std::memory_order_relaxed) - step) * f.shrink, std::memory_order_relaxed);
  }
}

void ScaledAddScalar(float* y, const uint32_t* index, const float* value, uint32_t n, float a) {
  for (uint32_t e = 0; e < n; ++e) y[index[e]] += value[e] * a;
}

void RowScoresScalar(const float* w, const uint32_t* index, const float* value, uint32_t n,
                     int k_out, float* z) {
  for (uint32_t e = 0; e < n; ++e) {
    const float* wj = w + uint64_t{index[e]} * k_out;
    for (int k = 0; k < k_out; ++k) z[k] += value[e] * Load(wj, k);
  }
}

void SgdRowsStepScalar(float* w, const uint32_t* index, const float* value, uint32_t n, int k_out,
                       const FeatureRate* rates, const float* d, float eta) {
  for (uint32_t e = 0; e < n; ++e) {
    const uint32_t j = index[e];
    const FeatureStep f = StepOf(rates, j, value[e], eta);
    float* wj = w + uint64_t{j} * k_out;
    for (int k = 0; k < k_out; ++k) {
      std::atomic_ref<float> a(wj[k]);
      const float step = eta * (d[k] * f.input);
      a.store((a.load(std::memory_order_relaxed) - step) * f.shrink, std::memory_order_relaxed);
    }
  }
}

}  // namespace parsgd::kernel
