// parsgd compare: its flags, and the grid of configurations they describe (from the command line
// and an optional experiment file), each checked through `train`'s own option declarations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "run_record.hpp"
#include "train_options.hpp"

namespace parsgd::cli {

// Where a comparison's f* (its distance to the optimum) comes from.
enum class OptimumMode { kAuto, kRuns, kNone };

inline constexpr Named<OptimumMode> kOptimumModes[] = {
    {OptimumMode::kAuto, "auto",
     "per problem a reference solver run: dual-cd to a duality gap of 1e-10 where it applies "
     "(certified), else primal cd to its stopping rule, else the runs' lowest objective"},
    {OptimumMode::kRuns, "runs", "the lowest objective of any epoch of the runs"},
    {OptimumMode::kNone, "none", "no distance to the optimum"},
};

struct CompareArgs {
  RunArgs run;  // train's flags, each taking a list
  int ranks = 1;  // processes of a run (an axis too); above 1 launched with `mpirun`
  std::string out, experiment;
  std::string gnuplot = "gnuplot";
  std::string mpirun = "mpirun";  // the launcher's command (its extra flags included)
  int repeats = 3;
  double target = -1;  // < 0: the best final objective of all runs + 1%
  double target_accuracy = -1;  // percent; < 0: the best final test accuracy of all runs - 0.5
  double alpha = 0.05;
  OptimumMode optimum = OptimumMode::kAuto;
  int jobs = 1;  // runs at once (compare_runs.hpp)
};

void DeclareCompareOptions(OptionParser& p, CompareArgs& a);

// One configuration of the grid, ready to run.
struct PlannedConfig {
  compare::Configuration config;  // point, label, problem, impossible
  RunArgs args;                   // its train flags; config.seed is the base seed
  int ranks = 1;                  // processes of each run (--ranks)
  std::string flags;              // its train flags as a command line: " --flag value ..."
  std::string command;            // the equivalent `parsgd train` command line (base seed)
  // The flags that decide the rows it reads (its files, every read option of kReadOptions, the
  // bias), with their values: configurations of one key share the data they load.
  std::string data_key;
};

struct Plan {
  std::vector<PlannedConfig> configs;
  std::vector<std::string> varying;     // flags whose value differs between configurations
  std::vector<compare::Setting> fixed;  // flags given with one value for every configuration
};

// The grid from the parsed command line and the experiment file (args.experiment), which may also
// set compare's own flags (not --out). Every value is checked as `train` checks it: a bad value,
// an unknown flag, a flag given twice or a missing --train is a UsageError naming the flag (and
// the file). A configuration that ValidateConfig refuses is kept, marked impossible; if every one
// is, throws UsageError (a command-line error, as in `train`). Nothing runs and nothing is written
// here.
Plan BuildPlan(OptionParser& parser, CompareArgs& args);

// The `PROGRAM train` command line of a configuration with `seed`, under `MPIRUN -np N` for a run
// of N > 1 ranks.
std::string TrainCommand(const PlannedConfig& pc, uint64_t seed, const std::string& program = "parsgd",
                         const std::string& mpirun = "mpirun");

// `text` quoted for a POSIX shell when it needs to be.
std::string ShellQuote(const std::string& text);

}  // namespace parsgd::cli
