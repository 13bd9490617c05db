// The dense compute of an MLP: the mean loss and gradient of a minibatch, and the scores of a
// batch.
//
// An engine belongs to one worker: it is not thread-safe, since it keeps its buffers (and, for
// oneDNN, its primitives, built once per batch shape and reused) between calls. Parameters come as
// the flat array of MlpModel's layout, so a worker can compute on its own snapshot or replica.
#pragma once

#include <memory>
#include <vector>

#include "parsgd/util/named.hpp"

namespace parsgd {

class MlpEngine {
 public:
  virtual ~MlpEngine() = default;

  // x: n rows of sizes.front() floats (row-major); labels: n class ids < sizes.back(); weights: n
  // row weights, each scaling its row's loss (null: every row 1); params: the flat parameters
  // (read only); grad: as many floats, set to the gradient of the mean weighted loss over the n
  // rows (sum w_i loss_i / n). Returns the sum of the n rows' weighted losses. 1 <= n <= max_batch.
  virtual double LossAndGradient(const float* params, const float* x, const int* labels,
                                 const float* weights, int n, float* grad) = 0;

  // scores: n x sizes.back() logits (row-major) of the n rows of x. 1 <= n <= max_batch.
  virtual void Scores(const float* params, const float* x, int n, float* scores) = 0;
};

enum class MlpBackend { kOneDnn, kReference };

inline constexpr Named<MlpBackend> kMlpBackends[] = {
    {MlpBackend::kOneDnn, "onednn", "oneDNN 2.6 matmul primitives (the product)"},
    {MlpBackend::kReference, "reference", "plain loops, for tests"},
};

// An engine for the MLP of `sizes` (input, hidden..., classes) on batches of up to max_batch rows.
// `threads`: the OpenMP threads oneDNN may use inside each call (1 inside parallel workers).
std::unique_ptr<MlpEngine> MakeMlpEngine(MlpBackend backend, const std::vector<int>& sizes,
                                         int max_batch, int threads = 1);

}  // namespace parsgd
