// The experiment file of `parsgd compare --experiment FILE`: JSON for grids that do not fit on a
// command line. Every key is a flag of `compare` without its dashes, with a value or a list of
// values; "grid" holds blocks, each a Cartesian product of its own flags with the top level's:
//
//   {"train": "rcv1.bin", "epochs": 10, "repeats": 5, "threads": [1, 2],
//    "grid": [{"scheme": ["hogwild", "sync"]},
//             {"scheme": "average", "period": [1, 10, "epoch"], "average-state": [false, true]}]}
//
// This reader only checks the shape; the flags and values are checked by the command's own
// option declarations, as on the command line (so paths are relative to the working folder, as
// there, not to the file's).
#pragma once

#include <string>
#include <vector>

#include "grid.hpp"

namespace parsgd::compare {

struct ExperimentFile {
  Block top;                  // the top level's flags (each with one value or a list)
  std::vector<Block> blocks;  // "grid"; empty if absent
};

// Values become command-line text: strings as they are, numbers as JSON writes them, true and
// false as "true" and "false". Throws parsgd::Error: "FILE:LINE:COLUMN: ..." for malformed JSON,
// "FILE: KEY: ..." for a value of the wrong kind (null, an object, a nested or empty list), a
// key given twice in one object, or a "grid" that is not a list of objects.
ExperimentFile ReadExperimentFile(const std::string& path);

}  // namespace parsgd::compare
