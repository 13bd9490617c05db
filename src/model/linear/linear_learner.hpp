// The linear models' learner (model/learner.hpp) on the cpu backend, and the start every backend's
// linear learner shares.
#pragma once

#include <memory>

#include "model/learner.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/linear/linear_model.hpp"
#include "parsgd/model/linear/linear_step.hpp"
#include "parsgd/model/targets.hpp"
#include "parsgd/util/array.hpp"

namespace parsgd {

// The linear models' parameters as every backend starts them: the zero model, its per-feature
// rates and L2 strength (model/linear/linear_settings.hpp); with an L1 penalty, its strength and
// per-feature rates (the cpu backend's).
struct LinearSetup {
  LinearModel model;
  AlignedArray<FeatureRate> rates;
  double l2 = 0;
  double l1 = 0;
  AlignedArray<float> l1_rates;
};
LinearSetup MakeLinearSetup(const TrainConfig& config, const ResolvedSettings& settings,
                            AlignedArray<FeatureRate> rates, const Targets& targets);

// The cpu backend's (the offload backend's: offload/offload_learner.hpp). It takes the run's
// resolution (run/resolve.hpp): `config` with every automatic setting made and `settings`, which
// it reads and never changes.
std::unique_ptr<Learner> MakeLinearLearner(const TrainConfig& config,
                                           const ResolvedSettings& settings,
                                           AlignedArray<FeatureRate> rates,
                                           AlignedArray<float> l1_rates, const Dataset& train,
                                           const Targets& targets);

}  // namespace parsgd
