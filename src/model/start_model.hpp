// Internal: whether a trained model can be the start of a run (Trainer::StartFrom). Every property
// of a model that must agree with the run is checked in this one function.
#pragma once

#include <string>

#include "parsgd/config/train_config.hpp"
#include "parsgd/model/model.hpp"
#include "parsgd/model/targets.hpp"

namespace parsgd {

// Empty when `model` fits the run of the resolved `config` and `settings` on training data with
// `targets`; else one "  what: start model X, this run Y" line per difference: the model family
// (linear or mlp) and, for linear models, binary or softmax; the features (the MLP's inputs); the
// classes (outputs) and their label values; the MLP's hidden sizes. A binary model may start
// another binary loss: the weights have the same shape and meaning (a score whose sign is the
// class).
std::string StartModelMismatch(const Model& model, const TrainConfig& config,
                               const ResolvedSettings& settings, const Targets& targets);

}  // namespace parsgd
