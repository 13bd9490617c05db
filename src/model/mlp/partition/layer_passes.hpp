// Internal: one dense layer's passes on a slice of its output units and a run of a minibatch's
// rows, as the MLP's model partitions compute them (model/mlp/partition/partitions.hpp), on GemmFn
// (dense_math). Matrices are row-major with the full layer's row strides: a: rows x inputs (the
// layer's input), z and dz: rows x outputs, W: inputs x outputs at params + weights_at (MlpModel's
// layout), so a slice [u0, u1) of the units reads and writes its own columns of the shared buffers.
#pragma once

#include "model/mlp/gemm.hpp"
#include "parsgd/model/mlp/mlp_model.hpp"

namespace parsgd {

// z[:, u0:u1] = a W[:, u0:u1] + b[u0:u1], through the ReLU when `relu` (the hidden layers).
void LayerForward(GemmFn gemm, const MlpLayer& layer, const float* params, const float* a, int rows,
                  int u0, int u1, bool relu, float* z);

// The gradients of W[:, u0:u1] and b[u0:u1] into grad (the parameters' layout): a^T dz[:, u0:u1]
// and dz's column sums, added to what grad holds with `accumulate` (the micro-batches of one
// minibatch), else written.
void LayerWeightGrad(GemmFn gemm, const MlpLayer& layer, const float* a, const float* dz, int rows,
                     int u0, int u1, bool accumulate, float* grad);

// da (rows x inputs) = dz[:, u0:u1] W[:, u0:u1]^T: the gradient of the layer's input from units
// [u0, u1), the whole of it when they are all the units.
void LayerInputGrad(GemmFn gemm, const MlpLayer& layer, const float* params, const float* dz,
                    int rows, int u0, int u1, float* da);

// Through the ReLU whose output is a (rows x width): dz = da where a > 0, else 0, on columns
// [c0, c1) (da of the same shape).
void ReluBackward(const float* a, const float* da, int rows, int width, int c0, int c1, float* dz);

}  // namespace parsgd
