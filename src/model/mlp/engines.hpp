// The MLP engine implementations (internal): one per backend, each in its own file so that every
// oneDNN include stays in model/mlp/onednn_engine.cpp.
#pragma once

#include <memory>
#include <vector>

#include "parsgd/model/mlp/mlp_engine.hpp"

namespace parsgd {

std::unique_ptr<MlpEngine> MakeReferenceEngine(const std::vector<int>& sizes, int max_batch);
std::unique_ptr<MlpEngine> MakeOneDnnEngine(const std::vector<int>& sizes, int max_batch,
                                            int threads);

// The softmax cross-entropy of n rows of logits, row i weighted by weights[i] (null: 1): returns
// the summed weighted loss and writes dz = w_i (softmax - onehot) / N, the gradient of the mean
// weighted loss over N rows with respect to the logits (N = mean_over, or n when it is 0: a part
// of a minibatch of N rows passes N).
double SoftmaxOutputGradient(const float* logits, const int* labels, const float* weights, int n,
                             int classes, float* dz, int mean_over = 0);

}  // namespace parsgd
