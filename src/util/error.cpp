#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

std::string Locate(const std::string& file, uint64_t line, uint64_t column,
                   const std::string& message) {
  std::string where = file;
  if (line > 0) where.append(":").append(std::to_string(line));
  if (line > 0 && column > 0) where.append(":").append(std::to_string(column));
  return where.append(": ").append(message);
}

}  // namespace

DataError::DataError(std::string file, uint64_t line, uint64_t column, const std::string& message)
    : Error(Locate(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column) {}

}  // namespace parsgd
