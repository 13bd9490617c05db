// The MLP's learner (model/learner.hpp).
#pragma once

#include <memory>
#include <vector>

#include "model/learner.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/targets.hpp"

namespace parsgd {

// `config` and `settings` resolved (run/resolve.hpp); `input_scale`: the model's input scaling
// (Resolution::input_scale; empty: none).
std::unique_ptr<Learner> MakeMlpLearner(const TrainConfig& config, const ResolvedSettings& settings,
                                        std::vector<float> input_scale, const Dataset& train,
                                        const Targets& targets);

}  // namespace parsgd
