#include "layer_passes.hpp"

#include <cstddef>

namespace parsgd {

void LayerForward(GemmFn gemm, const MlpLayer& layer, const float* params, const float* a, int rows,
                  int u0, int u1, bool relu, float* z) {
  const int in = layer.inputs, out = layer.outputs, width = u1 - u0;
  gemm(false, false, rows, width, in, a, in, params + layer.weights_at + u0, out, 0.f, z + u0, out);
  const float* b = params + layer.bias_at;
  for (int i = 0; i < rows; ++i) {
    float* row = z + static_cast<std::size_t>(i) * out;
    for (int u = u0; u < u1; ++u) row[u] += b[u];
    if (!relu) continue;
    for (int u = u0; u < u1; ++u) row[u] = row[u] > 0.f ? row[u] : 0.f;
  }
}

void LayerWeightGrad(GemmFn gemm, const MlpLayer& layer, const float* a, const float* dz, int rows,
                     int u0, int u1, bool accumulate, float* grad) {
  const int in = layer.inputs, out = layer.outputs, width = u1 - u0;
  gemm(true, false, in, width, rows, a, in, dz + u0, out, accumulate ? 1.f : 0.f,
       grad + layer.weights_at + u0, out);
  float* db = grad + layer.bias_at;
  if (!accumulate) {
    for (int u = u0; u < u1; ++u) db[u] = 0.f;
  }
  for (int i = 0; i < rows; ++i) {
    const float* row = dz + static_cast<std::size_t>(i) * out;
    for (int u = u0; u < u1; ++u) db[u] += row[u];
  }
}

void LayerInputGrad(GemmFn gemm, const MlpLayer& layer, const float* params, const float* dz,
                    int rows, int u0, int u1, float* da) {
  const int in = layer.inputs, out = layer.outputs, width = u1 - u0;
  gemm(false, true, rows, in, width, dz + u0, out, params + layer.weights_at + u0, out, 0.f, da,
       in);
}

void ReluBackward(const float* a, const float* da, int rows, int width, int c0, int c1, float* dz) {
  for (int i = 0; i < rows; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * width;
    for (int c = c0; c < c1; ++c) dz[at + c] = a[at + c] > 0.f ? da[at + c] : 0.f;
  }
}

}  // namespace parsgd
