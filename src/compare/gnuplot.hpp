// Drawing the plots with gnuplot, run as an external program when it is there. The data and the
// scripts are written either way; this only turns them into images.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace parsgd::compare {

// The executable `program` names: itself if it holds a '/', else the first match in $PATH.
// nullopt if there is none (or it is not executable).
std::optional<std::string> FindProgram(const std::string& program);

struct DrawResult {
  enum class State { kDrawn, kNotFound, kFailed, kSkipped };
  State state = State::kNotFound;
  std::string program;              // what was run (or looked for)
  std::vector<std::string> images;  // written, relative to the folder
  std::string message;              // kFailed: which script and why
};

// Runs `program SCRIPT` in `folder` for each script (one after another, stdin from /dev/null,
// output into folder/gnuplot.log, which is removed when empty). A script succeeds when the
// program exits with 0 and STEM.png and STEM.svg exist. Stops at the first failure.
DrawResult DrawPlots(const std::string& program, const std::string& folder,
                     const std::vector<std::string>& scripts);

}  // namespace parsgd::compare
