// Internal: the rows' weights of a run (run/trainer.cpp calls it once, before training):
// --class-weight applied to the training, test and held-out rows' targets, and each set's weights
// scaled to a mean of 1.
#pragma once

#include <optional>
#include <vector>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/config/train_config.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/model/targets.hpp"

namespace parsgd {

// Whether the training and the test rows have weights (on any rank).
struct Weighted {
  bool train = false;
  bool test = false;
  // Each class's weight under --class-weight (indexed by Targets::ClassOf), as the rows of every
  // set took it before their scaling to a mean of 1; empty: none given.
  std::vector<double> classes = {};
};

// Applies --class-weight to the targets of the training and test rows (balanced: by the rows of
// every rank) and scales each set's weights to a mean of 1. Collective.
Weighted WeighRows(const TrainConfig& given, const Dataset& train, Targets& train_targets,
                   std::optional<Targets>& test_targets, std::optional<Targets>& held_targets,
                   Communicator& ranks);

}  // namespace parsgd
