// The MLP's input: rows of a (sparse) data set as a dense, scaled minibatch. Shared by training
// (model/mlp/mlp_runner.cpp) and evaluation (model/evaluate.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

// For each of `rows`, its features below `inputs`, times input_scale, into x[i * inputs ...]
// (zeros elsewhere). labels[i] = targets[rows[i]] when labels is not null.
void GatherDense(const Dataset& data, std::span<const uint32_t> rows, const float* input_scale,
                 int inputs, float* x, const float* targets = nullptr, int* labels = nullptr);

}  // namespace parsgd
