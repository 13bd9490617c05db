// The reference MLP engine: the textbook forward and backward passes in plain loops. Slow; it is
// what the oneDNN engine is tested against.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engines.hpp"
#include "gemm.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"

namespace parsgd {
namespace {

class ReferenceEngine final : public MlpEngine {
 public:
  ReferenceEngine(const std::vector<int>& sizes, int max_batch)
      : layers_(LayoutMlp(sizes)), classes_(sizes.back()), inputs_(sizes.front()) {
    for (int s : sizes) activations_.emplace_back(static_cast<std::size_t>(max_batch) * s);
  }

  double LossAndGradient(const float* params, const float* x, const int* labels,
                         const float* weights, int n, float* grad) override {
    Forward(params, x, n);
    const auto& layers = layers_;
    const int classes = classes_;
    // dZ of the output layer: w_i (softmax - onehot) / n, and the loss.
    std::vector<float> dz(static_cast<std::size_t>(n) * classes);
    const double loss =
        SoftmaxOutputGradient(activations_.back().data(), labels, weights, n, classes, dz.data());
    for (int l = static_cast<int>(layers.size()) - 1; l >= 0; --l) {
      const MlpLayer& layer = layers[l];
      const float* in = activations_[l].data();
      float* dw = grad + layer.weights_at;
      float* db = grad + layer.bias_at;
      for (int a = 0; a < layer.inputs; ++a) {
        for (int b = 0; b < layer.outputs; ++b) {
          float s = 0;
          for (int i = 0; i < n; ++i) s += in[i * layer.inputs + a] * dz[i * layer.outputs + b];
          dw[a * layer.outputs + b] = s;
        }
      }
      for (int b = 0; b < layer.outputs; ++b) {
        float s = 0;
        for (int i = 0; i < n; ++i) s += dz[i * layer.outputs + b];
        db[b] = s;
      }
      if (l == 0) break;
      // dA = dZ W^T, then through the ReLU of the layer below: dZ' = dA * (A > 0).
      std::vector<float> below(static_cast<std::size_t>(n) * layer.inputs);
      const float* w = params + layer.weights_at;
      for (int i = 0; i < n; ++i) {
        for (int a = 0; a < layer.inputs; ++a) {
          float s = 0;
          for (int b = 0; b < layer.outputs; ++b)
            s += dz[i * layer.outputs + b] * w[a * layer.outputs + b];
          below[i * layer.inputs + a] = in[i * layer.inputs + a] > 0 ? s : 0.f;
        }
      }
      dz.swap(below);
    }
    return loss;
  }

  void Scores(const float* params, const float* x, int n, float* scores) override {
    Forward(params, x, n);
    std::copy_n(activations_.back().data(), static_cast<std::size_t>(n) * classes_, scores);
  }

 private:
  // activations_[0] = x, activations_[l + 1] = relu(A_l W_l + b_l) (no ReLU on the output).
  void Forward(const float* params, const float* x, int n) {
    const auto& layers = layers_;
    std::copy_n(x, static_cast<std::size_t>(n) * inputs_, activations_[0].data());
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const MlpLayer& layer = layers[l];
      const float* in = activations_[l].data();
      float* out = activations_[l + 1].data();
      const float* w = params + layer.weights_at;
      const float* bias = params + layer.bias_at;
      const bool relu = l + 1 < layers.size();
      for (int i = 0; i < n; ++i) {
        for (int b = 0; b < layer.outputs; ++b) {
          float s = bias[b];
          for (int a = 0; a < layer.inputs; ++a)
            s += in[i * layer.inputs + a] * w[a * layer.outputs + b];
          out[i * layer.outputs + b] = relu ? std::max(s, 0.f) : s;
        }
      }
    }
  }

  std::vector<MlpLayer> layers_;
  int classes_;
  int inputs_;
  std::vector<std::vector<float>> activations_;
};

}  // namespace

std::unique_ptr<MlpEngine> MakeReferenceEngine(const std::vector<int>& sizes, int max_batch) {
  return std::make_unique<ReferenceEngine>(sizes, max_batch);
}

void ReferenceGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float s = 0;
      for (int64_t p = 0; p < k; ++p) {
        s += (trans_a ? a[p * lda + i] : a[i * lda + p]) *
             (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * ldc + j] = beta == 0.f ? s : beta * c[i * ldc + j] + s;
    }
  }
}

GemmFn GemmFor(MlpBackend backend) {
  return backend == MlpBackend::kReference ? &ReferenceGemm : OneDnnGemm();
}

}  // namespace parsgd
