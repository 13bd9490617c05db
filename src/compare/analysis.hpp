// The analysis of a comparison: per configuration, the mean and spread over repeats of the final
// objective, test accuracy, time to a target objective and to a target test accuracy, and
// throughput; the speedup against the
// 1-thread configuration; and Welch's t-test between configurations that differ in one flag.
// Only finished runs enter the statistics; failed runs are counted.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "run_record.hpp"
#include "stats.hpp"

namespace parsgd::compare {

// The relative suboptimalities (f - f*) / |f*| whose epochs and seconds a configuration is timed
// to.
inline constexpr double kSuboptimalityLevels[] = {1e-2, 1e-3, 1e-4};

// The automatic target test accuracy: a problem's best final test accuracy less this (a fraction:
// half a percentage point), so that time to accuracy measures reaching the runs' level, not
// matching the luckiest repeat's last epoch.
inline constexpr double kAccuracyMargin = 0.005;

struct AnalysisOptions {
  // The target objective of every problem; nullopt: per problem, the best final objective of its
  // finished runs plus 1% of its magnitude.
  std::optional<double> target = {};
  // The target test accuracy (a fraction); nullopt: per problem, its best final test accuracy
  // less kAccuracyMargin.
  std::optional<double> target_accuracy = {};
  double alpha = 0.05;  // significance threshold of the two-sided Welch test
  // Distance to the optimum: per problem, f* from its reference solver run (where `references`
  // holds one that ran) or from the runs (the lowest objective of any epoch). false: none.
  bool optimum = true;
  std::vector<Reference> references = {};
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
  // The same for the target test accuracy (NaN without test accuracies): the first epoch whose
  // test accuracy is at or above it.
  double accuracy_target = std::numeric_limits<double>::quiet_NaN();
  int reached_accuracy = 0;
  Summary epochs_to_accuracy, seconds_to_accuracy;
  std::optional<double> accuracy_time_speedup;
  std::vector<CurvePoint> curve;  // epochs completed by every finished run
  // The final objective's relative suboptimality (f - f*) / |f*|; n == 0 without f*.
  Summary suboptimality;
  // Per kSuboptimalityLevels: the finished runs whose objective came within it of f*, their
  // epochs and (timed runs) seconds to it, by the first-epoch rule.
  struct Level {
    double level = 0;
    int reached = 0;
    Summary epochs, seconds;
  };
  std::vector<Level> levels;  // empty without f*
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

// Where a problem's f* comes from.
enum class OptimumSource {
  kNone,       // no f* (--optimum none, or no run finished)
  kCertified,  // dual-cd's run to a relative duality gap of at most 1e-6: the optimum lies within
               // the gap below f*
  kSolver,     // primal cd's run to its stopping rule, or dual-cd's with a wider gap: no
               // certificate for the levels
  kRuns,       // the lowest objective of any epoch of the runs: no solver applies
};

struct ProblemTarget {
  std::string problem;
  double target = 0;
  double best = 0;     // best final objective (NaN when no run finished)
  bool given = false;  // from --target
  // The target test accuracy and the best final one it is derived from (fractions; NaN when no
  // finished run has one); accuracy_given: from --target-accuracy.
  double accuracy_target = std::numeric_limits<double>::quiet_NaN();
  double accuracy_best = std::numeric_limits<double>::quiet_NaN();
  bool accuracy_given = false;
  // f*: the reference solver's objective, or the runs' lowest where that is lower (a solver
  // without a certificate can stop above a run); NaN when none.
  double optimum = std::numeric_limits<double>::quiet_NaN();
  OptimumSource source = OptimumSource::kNone;
  std::optional<Reference> reference;  // the solver run (or why none ran)
  bool runs_below_solver = false;      // a run's epoch went below the solver's objective
};

// Whether a reference run certifies its objective as f*: a duality gap of at most 1e-6 of it, a
// hundredth of the finest level (the levels are then measured against the optimum itself).
bool Certifies(const Reference& reference);

// "certified", "solver", "runs" or "none".
const char* OptimumSourceName(OptimumSource source);

// (f - f*) / |f*| (|f*| at least 1e-300).
double RelativeSuboptimality(double objective, double optimum);

struct Analysis {
  std::vector<ConfigResult> configs;  // parallel to the configurations
  std::vector<ProblemTarget> targets;
  std::vector<Comparison> comparisons;  // by flag (in `varying` order), then by configuration
};

// `varying`: the flags the comparisons are made along (those that vary in the grid).
Analysis Analyze(const std::vector<Configuration>& configs, const std::vector<RunRecord>& runs,
                 const std::vector<std::string>& varying, const AnalysisOptions& options);

}  // namespace parsgd::compare
