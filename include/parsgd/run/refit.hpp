// A refit (the command line's --refit, the estimators' refit=True): after a run that stopped early
// on held-out rows, a second run on all the training rows for the best epoch's count, its step
// replayed: the same schedule and planned epochs, and the adaptive schedule's cuts made before
// that epoch (Trainer::Replay).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "parsgd/config/train_config.hpp"
#include "parsgd/run/trainer.hpp"

namespace parsgd {

struct RefitPlan {
  TrainConfig config;          // no rows held out; the first run's schedule and epochs
  int last = 0;                // the first run's best epoch: the refit's last
  std::vector<uint64_t> cuts;  // the first run's cuts before it
};

// The refit of `first` (run with `given`), which stopped early at its best epoch `best`.
RefitPlan PlanRefit(const TrainConfig& given, const Trainer& first, int best);

// Whether the setting `key` is the held-out rows' own (--validation-fraction, --patience,
// --validation-metric): given to the first run, not to its refit, which must not refuse it.
bool IsHeldOutSetting(std::string_view key);

}  // namespace parsgd
