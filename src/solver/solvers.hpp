// The solvers' runners other than sgd's (--solver cd, dual-cd, newton): runners of the linear
// models (model/linear/linear_runner.hpp) whose epochs take exact coordinate steps or a Newton step
// instead of gradient steps, under the schemes their rows in scheme/scheme_kind.hpp name.
#pragma once

#include <memory>

#include "model/linear/linear_runner.hpp"
#include "parsgd/config/train_config.hpp"

namespace parsgd {

// --solver dual-cd (solver/dual_cd.cpp): hinge and logistic, under the asynchronous schemes.
std::unique_ptr<LinearRunner> MakeDualCdRunner(const TrainConfig& config, const RunnerShape& shape);
// --solver cd (solver/primal_cd.cpp): squared and logistic, over a partition of the features.
std::unique_ptr<LinearRunner> MakePrimalCdRunner(const TrainConfig& config,
                                                 const RunnerShape& shape);
// --solver newton (solver/newton.cpp): squared, squared-hinge and logistic, the passes over the
// data in parallel.
std::unique_ptr<LinearRunner> MakeNewtonRunner(const TrainConfig& config, const RunnerShape& shape);
// Whether newton sums X^T u in its passes over the rows, each of a fixed number of row blocks
// into accumulators of its own (data of few features against its nonzeros: one pass an inner
// iteration, no column copy), or over a column copy of the data (two passes).
bool NewtonSumsByRows(uint64_t features, uint64_t nnz);

}  // namespace parsgd
