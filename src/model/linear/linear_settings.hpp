// The linear models' settings derived from the training data, the same for every backend: the
// per-feature rates (the --normalize preconditioner m_j, the implicit L2 term m_j q_j and the L1
// term's), the L2 strength, the mean preconditioned row norms and the default step size built on
// them.
#pragma once

#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

class Communicator;
class Executor;

struct LinearSettings {
  AlignedArray<FeatureRate> rates;  // empty when no feature needs one (no scaling, no L2)
  // With an L1 penalty: feature j's m_j l1 for sgd's cumulative penalty, m_j l1 n / d_j for the
  // other rules (the sparse form of l1 |w_j|, as the L2 term's rate): optimizer.hpp; empty
  // without one.
  AlignedArray<float> l1_rates;
  double l2 = 0;
  double eta0 = 0;
  double mean_squared_norm = 0;  // mean over rows of sum_j m_j x_j^2, + 1 (the bias input) with
                                 // --bias on
  double mean_l1_norm = 0;       // mean over rows of sum_j sqrt(m_j) |x_j|, + 1 with --bias on
  double top_eigenvalue =
      0;  // squared loss with minibatches: of mean x x^T (model/linear/curvature.hpp)
};

// `config` has its scheme, optimizer and batch resolved. One pass over the training rows (and, for
// the squared loss with minibatches, a power iteration on a sample of them), shared by up to 8 of
// the executor's threads (the same bits at any count).
// `auto_l2_scale`: the auto L2 (1 / rows, LIBLINEAR's C = 1) times it (weighted rows: the
// heaviest class's mean weight, so that its rows are regularised as an unweighted row is).
LinearSettings ResolveLinearSettings(const TrainConfig& config, const Dataset& train,
                                     Executor& executor, double auto_l2_scale = 1);

// The same for a run over several ranks, `train` being this rank's share (LoadShard): the
// per-feature statistics and the row count are those of every share together (summed, and the
// largest |x_j| the largest of any), so every rank gets the settings one process would derive
// from the whole data (to the rounding of sums taken in another order). Collective. The squared
// loss with minibatches (its power iteration on the rows) is refused for now.
LinearSettings ResolveLinearSettings(const TrainConfig& config, const Dataset& train,
                                     Executor& executor, Communicator& comm,
                                     double auto_l2_scale = 1);

}  // namespace parsgd
