// What a comparison keeps of each configuration and each run: the numbers the analysis needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grid.hpp"

namespace parsgd::compare {

// One configuration of the grid.
struct Configuration {
  Point point;
  Point display;           // the point as shown (data files by name); empty: the point itself
  std::string label;       // its shown values of the flags that vary ("scheme=hogwild threads=2")
  std::string problem;     // configurations with the same problem minimise the same objective
  std::string method;      // its label without the problem's flags: the same method across problems
  std::string impossible;  // non-empty: why it cannot run (found before any run; it is not run)
};

inline const Point& Shown(const Configuration& c) {
  return c.display.empty() ? c.point : c.display;
}

struct EpochRecord {
  int epoch = 0;  // 1-based
  double objective = 0;
  std::optional<double> test_accuracy;
  std::optional<double> train_seconds;  // the workers' wall time; unknown under --deterministic
  uint64_t updates = 0;
};

struct RunRecord {
  std::size_t config = 0;  // index into the configurations
  int repeat = 0;          // 0-based
  uint64_t seed = 0;
  std::vector<EpochRecord> epochs;  // the epochs completed (all of them when the run finished)
  std::string error;                // non-empty: the run failed (diverged, refused by the trainer)
  bool finished() const { return error.empty(); }
};

// A problem's reference optimum (compare --optimum): a solver run on the problem's data and
// objective, to its certificate (dual-cd's duality gap) or to its stopping rule (primal cd).
struct Reference {
  std::string problem;
  std::string solver;         // "dual-cd" or "cd"; empty: none ran (why_none says why)
  double objective = 0;       // its final objective
  std::optional<double> gap;  // dual-cd: its final primal minus dual objective
  int epochs = 0;
  double seconds = 0;
  std::string why_none;
};

}  // namespace parsgd::compare
