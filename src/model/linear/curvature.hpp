// The largest eigenvalue of the rows' second-moment matrix, which bounds how far a minibatch's mean
// gradient can be trusted (see AutoEta0 in model/linear/linear_settings.cpp).
#pragma once

#include <cstdint>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear/linear_step.hpp"

namespace parsgd {

// lambda_max of mean_i x_i x_i^T, the rows taken in the preconditioned geometry
// (x_ij * sqrt(m_j)) with the bias input 1 appended, by `iterations` steps of power iteration on
// `sample_rows` rows evenly strided over the data (all of them if there are fewer). Deterministic.
// Cost: iterations x the sample's nonzeros, plus O(features) memory. With `comm`, collective: each
// rank samples its own share of the rows and every rank returns the estimate over all the samples
// (a sum of the spanned features' entries per iteration).
double EstimateTopEigenvalue(const Dataset& data, const FeatureRate* rates,
                             Communicator* comm = nullptr, uint64_t sample_rows = 4096,
                             int iterations = 30);

}  // namespace parsgd
