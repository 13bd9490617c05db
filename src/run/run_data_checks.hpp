// Internal: what a run checks of its rows (run/trainer.cpp): rows to train on before it starts,
// and files that stayed as they were after each epoch. Each throws on every rank where it fails on
// one (Communicator::AgreeOn).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "parsgd/comm/communicator.hpp"
#include "parsgd/data/dataset.hpp"

namespace parsgd {

// Throws parsgd::Error where `train` (this rank's share) has no features or no rows.
void CheckTrainingRows(const Dataset& train, Communicator& ranks);

// Rows read from their file (the block order's) are read again each epoch: a file changed in
// place under the run has given epoch `epoch` (1-based) other rows, or garbage. Throws DataError
// naming the first such file of `sets` (null entries skipped).
void CheckFilesUnchanged(std::initializer_list<const Dataset*> sets, uint64_t epoch,
                         Communicator& ranks);

}  // namespace parsgd
