// Reading back `parsgd train --metrics` (JSON Lines, one object per epoch; src/cli/report.cpp
// writes them): what a comparison keeps of each epoch, for runs that `compare` launches as their
// own processes (across ranks, under mpirun).
#pragma once

#include <string>
#include <vector>

#include "run_record.hpp"

namespace parsgd::compare {

// The epochs of a metrics file's text. Throws parsgd::Error naming the line for one that is not a
// JSON object with a numeric "epoch", "objective" and "updates" ("test_accuracy" and
// "train_seconds" may be null or absent).
std::vector<EpochRecord> ReadEpochRecords(const std::string& jsonl);

// A run read back from a comparison's runs.jsonl, with its lines as they were written.
struct KeptRun {
  RunRecord record;
  std::string lines;
};
// The runs of a comparison's runs.jsonl (each line carries the run's 1-based "config" and
// "repeat"; an epoch line the metrics' fields, a failed run's last line its "seed" and "error"),
// in the order they first appear. Throws parsgd::Error naming a line that is not such an object.
std::vector<KeptRun> ReadRuns(const std::string& jsonl);

}  // namespace parsgd::compare
