// What `train` prints: one aligned human line per epoch, and one JSON object per epoch for the
// --metrics file (JSON Lines).
#pragma once

#include <optional>
#include <string>

#include "parsgd/config/train_config.hpp"
#include "parsgd/run/epoch_report.hpp"

namespace parsgd::cli {

// The columns' titles, matching EpochLine. A dual solver's runs (`dual`) show the relative duality
// gap where the others show the step size.
// Early stopping's runs (`has_validation`) show the held-out rows' loss and accuracy, the best
// epoch so far marked '*'. A regression's (`regression`) show the RMSE in place of each accuracy
// (EpochLine shows it where the report has a fit).
// With `suboptimality` (train --suboptimality) a last column gives the objective's relative
// distance (f - f*) / |f*| to `optimum`.
std::string EpochHeader(bool has_test, bool dual = false, bool has_validation = false,
                        bool regression = false, bool suboptimality = false);
std::string EpochLine(const EpochReport& r, int epochs, double elapsed_seconds, bool has_test,
                      bool has_validation = false, std::optional<double> optimum = std::nullopt);

// One JSON object (no newline): the run's settings as the settings table records them in the
// metrics (SettingRecord::metrics; `resolved`: Trainer::config()), whether the scheme was auto in
// `given`, what the run derived, and every field of the report; absent test values are null. A
// dual solver's objects add "dual_objective"; with `optimum`, "suboptimality": (f - f*) / |f*|.
std::string EpochJson(const EpochReport& r, const TrainConfig& given, const TrainConfig& resolved,
                      const ResolvedSettings& settings, double elapsed_seconds,
                      std::optional<double> optimum = std::nullopt);

// "12.3M", "950k", "87": a rate with three significant figures.
std::string HumanCount(double value);

}  // namespace parsgd::cli
