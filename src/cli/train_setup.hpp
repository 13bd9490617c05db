// What `parsgd train` says about a run before its first epoch and after its last: the setup lines
// (the data; the settings the user gave, in their words; every other setting that applies, as the
// run resolved it, from the settings table; what the run derived; why auto chose its scheme), the
// line that says why a run stopped early, and the model file's settings text.
#pragma once

#include <cstdint>
#include <string>

#include "options.hpp"
#include "parsgd/data/dataset.hpp"
#include "parsgd/run/trainer.hpp"

namespace parsgd::cli {

// The setup lines, each ending in '\n'. `rows` and `nonzeros`: every rank's together.
std::string SetupLines(const OptionParser& parser, const Trainer& trainer, const Dataset& train,
                       uint64_t rows, uint64_t nonzeros);

// Why the run stopped before its last epoch.
std::string ConvergedLine(const EpochReport& r, const ResolvedSettings& s, const TrainConfig& c);

// The settings text of the model file (io/model_file.hpp), for people and `parsgd info`: where
// the data came from (`train`), the run's resolved settings as the settings table records them,
// what the run derived (workers, device) and what it started from (`init`, empty: nothing).
std::string SettingsText(const Trainer& trainer, const std::string& train, const std::string& init);

}  // namespace parsgd::cli
