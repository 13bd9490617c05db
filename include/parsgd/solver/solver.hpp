// The solver axis (--solver): how the model is fitted. Stochastic gradient steps (the schemes and
// optimisers of scheme/ and optim/), coordinate descent on the primal over a partition of the
// features (Shotgun, Bradley et al. 2011; the workers share the rows' scores X w), or coordinate
// descent on the problem's dual (hinge: Hsieh et al. 2008, LIBLINEAR -s 3; logistic: Yu, Huang
// and Lin 2011, LIBLINEAR -s 7; in parallel PASSCoDe, Hsieh, Yu and Dhillon 2015), one dual
// variable per sample, the primal weights shared, or Newton's method on the primal, its
// directions by conjugate gradients (LIBLINEAR -s 0, -s 2), the passes over the data shared by the
// threads. Which schemes run each solver is said by the scheme table (scheme/scheme_kind.hpp).
#pragma once

#include "parsgd/util/named.hpp"

namespace parsgd {

enum class Solver { kSgd, kDualCd, kCd, kNewton };

inline constexpr Named<Solver> kSolvers[] = {
    {Solver::kSgd, "sgd", "stochastic gradient steps under --scheme and --optimizer"},
    {Solver::kDualCd, "dual-cd",
     "hinge, squared-hinge, logistic: dual coordinate descent, one sample's dual variable per "
     "step (LIBLINEAR -s 3, -s 1, -s 7); --bias off"},
    {Solver::kCd, "cd",
     "squared, squared-hinge, logistic: primal coordinate descent, each worker on its block of "
     "the features"},
    {Solver::kNewton, "newton",
     "squared, squared-hinge, logistic: Newton steps, each direction by conjugate gradients "
     "(LIBLINEAR -s 0, -s 2), for dense or ill-conditioned data"},
};

// Whether the solver visits samples in a sample order (--order): sgd and dual-cd; cd visits
// features and newton passes over every row at once, so they hold the rows whole.
constexpr bool TakesSampleOrder(Solver solver) {
  return solver == Solver::kSgd || solver == Solver::kDualCd;
}

}  // namespace parsgd
