// parsgd compare --optimum: a problem's reference optimum f*, from a solver run on the problem's
// data and objective: dual coordinate descent where it applies (its duality gap certifies f*),
// else primal coordinate descent to its stopping rule (no certificate), else none (the comparison
// then measures against the runs' lowest objective).
#pragma once

#include <string>

#include "interrupt.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "run_record.hpp"

namespace parsgd::cli {

// Why no reference solver can take the objective of `run` (its model, its held-out rows); empty
// when one may (data-dependent refusals come from SolveOptimum).
std::string WhyNoOptimum(const TrainConfig& run);

// The reference run for the objective of `run` (a configuration's settings) on `train`. Never
// throws for a solver that cannot take the problem: the result then names no solver and says why.
// A signal (`guard`) stops the solver: the result then names none ("interrupted").
compare::Reference SolveOptimum(const std::string& problem, const TrainConfig& run,
                                const Dataset& train, InterruptGuard& guard);

}  // namespace parsgd::cli
