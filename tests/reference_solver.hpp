// A slow, simple, double-precision reference for the linear models: the exact objective and its
// minimiser by full-batch accelerated gradient descent (subgradient descent for hinge), used to
// check that SGD converges to the known optimum.
#pragma once

#include <vector>

#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear/loss.hpp"

namespace parsgd::testing {

// Weights in LinearModel's layout ((features + 1) * outputs, bias last).
struct Reference {
  std::vector<double> weights;
  double objective;
};

// mean loss + l2 / 2 * ||w||^2 (bias excluded), targets as MakeTargets gives them.
double ReferenceObjective(ModelKind kind, const Dataset& data, const std::vector<float>& targets,
                          int outputs, double l2, const std::vector<double>& weights);

// Minimises the objective; `iterations` full passes. For hinge, minimises a smoothed hinge and
// reports the true objective at that point: an upper bound of the optimum, within 5e-3 of it once
// the smoothed problem is solved.
// With `bias` false the bias stays 0 (the problem without a bias, --bias off).
Reference SolveReference(ModelKind kind, const Dataset& data, const std::vector<float>& targets,
                         int outputs, double l2, int iterations, bool bias = true);

}  // namespace parsgd::testing
