// How a `parsgd train` run starts other than from scratch: from a checkpoint (--resume), whose run
// it continues, possibly for more epochs, or from a saved model (--init), which it fine-tunes.
#pragma once

#include <string>

#include "options.hpp"
#include "parsgd/io/checkpoint.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/run/trainer.hpp"
#include "train_options.hpp"

namespace parsgd::cli {

// The scheme of the run that wrote checkpoint `c` (read from `path`): a resumed --scheme auto
// continues with it rather than choosing again (the choice may depend on the machine's state).
SchemeKind CheckpointScheme(const Checkpoint& c, const std::string& path);
// The minibatch of the checkpoint's run (its run identity's "batch").
int CheckpointBatch(const Checkpoint& c, const std::string& path);

// Puts checkpoint `c` (read from `path`) into `trainer`, which must be the same run on the same
// data; only the number of epochs may differ, as long as it is at least the epochs the checkpoint
// has done. Returns the setup lines that say so (and, for the linear schedule, its new plan).
// Throws parsgd::Error naming the differing settings, the other data, or the epochs.
std::string Resume(Trainer& trainer, const Checkpoint& c,
                   const std::string& path);

// --init: the flags the command line left out take the model's values: --model, --hidden (an mlp)
// and --features (the data is read as wide as the model: a narrower file fits it, a wider one is
// an error).
void TakeModelDefaults(const OptionParser& parser, const LoadedModel& model, RunArgs& run);

// Starts `trainer` from `model`, read from `path`; throws parsgd::Error naming the file and each
// difference when it does not fit the run. Returns the setup line that says so.
std::string StartFromModel(Trainer& trainer, const LoadedModel& model, const std::string& path);

}  // namespace parsgd::cli
