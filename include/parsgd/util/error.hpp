// Error types thrown by the library. The library never prints and never exits: every failure is an
// exception that the caller (the CLI, a test, a user's program) turns into a message.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace parsgd {

// Any failure the user can act on: a bad setting, a missing file, a diverging run.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed input data. what() reads "file:line:column: message" (line and column 1-based; a zero
// line or column is left out, e.g. for a binary file where only a byte offset makes sense).
class DataError : public Error {
 public:
  DataError(std::string file, uint64_t line, uint64_t column, const std::string& message);

  const std::string& file() const { return file_; }
  uint64_t line() const { return line_; }
  uint64_t column() const { return column_; }

 private:
  std::string file_;
  uint64_t line_;
  uint64_t column_;
};

}  // namespace parsgd
