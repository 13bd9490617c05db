// Internal: the matrix products the MLP's model partitions (model/mlp/partition/partitions.hpp) are
// written with, on parts of layers (column slices, row ranges of a minibatch) that the
// whole-network engines (parsgd/model/mlp/mlp_engine.hpp) do not expose. Row-major, single
// precision, BLAS's sgemm:
//   C = op(A) op(B) + beta C,   op(A): m x k,  op(B): k x n,  C: m x n,
// op = the transpose where asked; lda, ldb, ldc: the row strides of A, B and C as stored, in
// floats. Each call runs on the calling thread only. oneDNN's sgemm for MlpBackend::kOneDnn (every
// oneDNN include stays in model/mlp/onednn_engine.cpp), plain loops for kReference.
#pragma once

#include <cstdint>

#include "parsgd/model/mlp/mlp_engine.hpp"

namespace parsgd {

using GemmFn = void (*)(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                        int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                        int64_t ldc);

GemmFn GemmFor(MlpBackend backend);

// The backends': oneDNN's sgemm (model/mlp/onednn_engine.cpp, in its plugin: loaded on the first
// call), and plain loops (model/mlp/reference_engine.cpp).
GemmFn OneDnnGemm();
void ReferenceGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace parsgd
