// SoftmaxOutputGradient (model/mlp/engines.hpp): in a file of its own, as the oneDNN plugin
// (util/plugin.hpp) builds it in too.
#include "engines.hpp"
#include "parsgd/model/linear/loss.hpp"

namespace parsgd {

double SoftmaxOutputGradient(const float* logits, const int* labels, const float* weights, int n,
                             int classes, float* dz, int mean_over) {
  double loss = 0;
  const float inv = 1.f / static_cast<float>(mean_over > 0 ? mean_over : n);
  for (int i = 0; i < n; ++i) {
    float* row = dz + static_cast<std::size_t>(i) * classes;
    const double value = SoftmaxLoss::ValueAndGradient(
        logits + static_cast<std::size_t>(i) * classes, classes, labels[i], row);
    const float w = weights != nullptr ? weights[i] : 1.f;
    loss += w * value;
    const float scale = w * inv;
    for (int k = 0; k < classes; ++k) row[k] *= scale;
  }
  return loss;
}

}  // namespace parsgd
