// The parsgd subcommands. Each takes its arguments (after the command name), returns the process
// exit status, and throws UsageError for a bad command line and parsgd::Error for everything else.
#pragma once

#include <span>
#include <string>

namespace parsgd::cli {

int Train(std::span<const std::string> args);
int Predict(std::span<const std::string> args);
int Eval(std::span<const std::string> args);
int Generate(std::span<const std::string> args);
int Convert(std::span<const std::string> args);
int Device(std::span<const std::string> args);
int Compare(std::span<const std::string> args);

}  // namespace parsgd::cli
