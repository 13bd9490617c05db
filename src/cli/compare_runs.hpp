// parsgd compare: runs the grid, one run after another (by default: runs at once would share the
// cores and each other's memory bandwidth, and their times would not be a run's alone; --jobs runs
// several at once for grids judged by epochs), with a progress line per run on stderr and every
// epoch of every run in JSON Lines.
#pragma once

#include <string>
#include <vector>

#include "compare_grid.hpp"
#include "interrupt.hpp"
#include "metrics_reader.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "run_record.hpp"

namespace parsgd::cli {

// Checks that every data file of a possible configuration can be opened (its format detected),
// so that a misspelt path fails before any run. Throws parsgd::Error naming the path.
void CheckDataFiles(const Plan& plan);

struct RunOutcome {
  std::vector<compare::RunRecord> runs;
  std::vector<std::string> data;  // "PATH: rows x features (nonzeros)" per data set loaded
  int planned = 0;                // the runs of the grid
  int signal = 0;                 // the signal that ended the grid early (`runs`: those finished)
  std::vector<compare::Reference> references;  // with `optimum`: one per problem, in plan order
};

// Runs `repeats` repeats of every possible configuration: each run is `train` with the
// configuration's flags and --seed SEED+r-1. Runs are grouped by data set (loaded once per group)
// and, inside a group, ordered repeat by repeat, so that a slow drift of the machine touches every
// configuration alike. A run that fails (diverges, is refused by the trainer, cannot load its
// data) is recorded with its error and the others go on. Each epoch is written to `jsonl` as
// `train --metrics` writes it, with the configuration and repeat in front; a failed run adds one
// line with its error. A configuration of more than one rank runs as `MPIRUN -np N parsgd train`
// (`mpirun`: the launcher's command), its epochs read back from the run's --metrics; every rank
// reads its own share of the data.
// SIGINT or SIGTERM (`guard`) stops the run in progress and ends the grid: that run is left out
// (neither recorded nor written), the ones before it kept, and the outcome says it was
// interrupted. `kept`: runs of an interrupted comparison of the same grid, which are not run
// again: they come first in the outcome and in `jsonl`. With `optimum`, after a data group's runs
// each of its problems gets its reference solver run (SolveOptimum), on one thread; an
// interrupted grid has none for the groups it did not finish. `jobs` above 1: up to that many
// runs at once, as long as their threads fit in the cores (a run on every core, or across ranks,
// runs alone); such runs record no times (they shared the machine), and the outcome is the same
// as one at a time's, in the same order.
RunOutcome RunAll(const Plan& plan, int repeats, const std::string& mpirun, AtomicFileWriter& jsonl,
                  InterruptGuard& guard, const std::vector<compare::KeptRun>& kept = {},
                  bool optimum = false, int jobs = 1);

}  // namespace parsgd::cli
