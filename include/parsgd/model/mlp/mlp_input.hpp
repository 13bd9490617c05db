// The MLP's input: rows of a (sparse) data set as a dense, scaled minibatch. Shared by training
// (model/mlp/mlp_runner.cpp) and evaluation (model/evaluate.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

// For each of `rows`, its features below `inputs`, times input_scale, into x[i * inputs ...]
// (zeros elsewhere).
void GatherDense(const Dataset& data, std::span<const uint32_t> rows, const float* input_scale,
                 int inputs, float* x);

// For each of `rows`, its class id (targets[rows[i]]) into labels[i], and where the rows have
// weights (row_weights not null) its weight into weights[i].
void GatherLabels(std::span<const uint32_t> rows, const float* targets, const float* row_weights,
                  int* labels, float* weights);

}  // namespace parsgd
