// The comparison's CSV files: one row per configuration (summary.csv) and one per run (runs.csv).
// Empty cells where a value does not exist (a single repeat's spread, times under --deterministic).
#pragma once

#include <string>
#include <vector>

#include "analysis.hpp"

namespace parsgd::compare {

// Columns: config, label, one per varying flag, status (ok | partial | failed | impossible), runs,
// failed, objective and test accuracy (mean, std), target, reached, epochs and seconds to target
// (mean, std), samples/s (mean, std), throughput_speedup, time_to_target_speedup, optimum,
// optimum_source, suboptimality (mean, std), reached, epochs_to and seconds_to each suboptimality
// level, accuracy_target (a fraction), reached_accuracy, epochs and seconds to accuracy (mean,
// std), time_to_accuracy_speedup, error.
std::string SummaryCsv(const std::vector<Configuration>& configs, const Analysis& analysis,
                       const std::vector<std::string>& varying);

// Columns: config, label, repeat, seed, status (ok | failed), epochs, final_objective,
// final_test_accuracy, train_seconds, samples_per_second, epochs_to_target, seconds_to_target,
// error.
std::string RunsCsv(const std::vector<Configuration>& configs, const std::vector<RunRecord>& runs,
                    const Analysis& analysis);

// The status word of a configuration in summary.csv and the report.
std::string Status(const Configuration& config, const ConfigResult& result);

}  // namespace parsgd::compare
