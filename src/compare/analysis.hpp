// The analysis of a comparison: per configuration, the mean and spread over repeats of the final
// objective, test accuracy, time to a target objective and throughput; the speedup against the
// 1-thread configuration; and Welch's t-test between configurations that differ in one flag.
// Only finished runs enter the statistics; failed runs are counted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run_record.hpp"
#include "stats.hpp"

namespace parsgd::compare {

struct AnalysisOptions {
  // The target objective of every problem; nullopt: per problem, the best final objective of its
  // finished runs plus 1% of its magnitude.
  std::optional<double> target;
  double alpha = 0.05;  // significance threshold of the two-sided Welch test
};

// One point of a configuration's mean curve: the epoch, the objective over its finished runs,
// and the training seconds up to the epoch's end (n == 0 when the runs carry no times).
struct CurvePoint {
  int epoch = 0;
  Summary objective;
  Summary seconds;
};

struct ConfigResult {
  int runs = 0;  // runs attempted
  int failed = 0;
  std::string error;           // the first failed run's message
  Summary objective;           // final objective of the finished runs
  Summary test_accuracy;       // n == 0 without test data
  Summary samples_per_second;  // updates / training seconds over the whole run; n == 0 if untimed
  double target = 0;           // the target of its problem
  int reached = 0;             // finished runs that reached the target
  Summary epochs_to_target;    // over the runs that reached it (first-epoch rule)
  Summary seconds_to_target;   // the same, for the timed runs
  // The configuration identical but for --threads 1, when the grid has it.
  std::optional<std::size_t> baseline;
  std::optional<double> throughput_speedup;  // mean samples/s over the baseline's
  // Baseline's mean seconds to target over this one's, when every finished run of both reached it.
  std::optional<double> time_speedup;
  std::vector<CurvePoint> curve;  // epochs completed by every finished run
};

// Two configurations that differ only in `flag`. Each test is nullopt when a side has fewer than
// two values (seconds: also when a run did not reach the target or has no times). Objectives and
// seconds to target are compared only within one problem (the same objective), test accuracies
// only on the same test set (`flag` is not "test").
struct Comparison {
  std::string flag;
  std::size_t a = 0, b = 0;
  std::optional<WelchResult> objective = {}, test_accuracy = {}, seconds_to_target = {};
};

struct ProblemTarget {
  std::string problem;
  double target = 0;
  double best = 0;     // best final objective (NaN when no run finished)
  bool given = false;  // from --target
};

struct Analysis {
  std::vector<ConfigResult> configs;  // parallel to the configurations
  std::vector<ProblemTarget> targets;
  std::vector<Comparison> comparisons;  // by flag (in `varying` order), then by configuration
};

// `varying`: the flags the comparisons are made along (those that vary in the grid).
Analysis Analyze(const std::vector<Configuration>& configs, const std::vector<RunRecord>& runs,
                 const std::vector<std::string>& varying, const AnalysisOptions& options);

}  // namespace parsgd::compare
