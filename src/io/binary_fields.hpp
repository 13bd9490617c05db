// Internal: the fixed-size fields of parsgd's own binary files (model files, checkpoints), written
// and read in the machine's byte order (little-endian on every supported target).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "parsgd/util/error.hpp"

namespace parsgd::io_internal {

// Appends the bytes of `value` to `out`.
template <class T>
void PutField(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads fields in order from [data, data + size), refusing to read past the end: a short file is
// DataError "path: truncated KIND (in the FIELD)", KIND naming the file ("model file", ...).
class FieldReader {
 public:
  FieldReader(const char* data, std::size_t size, const std::string& path, const char* kind)
      : data_(data), size_(size), path_(path), kind_(kind) {}

  template <class T>
  T Get(const char* field) {
    T value;
    std::memcpy(&value, Skip(sizeof(T), field), sizeof(T));
    return value;
  }
  std::string Text(uint64_t n, const char* field) {
    return std::string(Skip(n, field), static_cast<std::size_t>(n));
  }
  // The next n bytes, in place.
  const char* Skip(uint64_t n, const char* field) {
    if (n > size_ - pos_)
      throw DataError(path_, 0, 0, fmt::format("truncated {} (in the {})", kind_, field));
    const char* at = data_ + pos_;
    pos_ += static_cast<std::size_t>(n);
    return at;
  }
  std::size_t pos() const { return pos_; }
  std::size_t left() const { return size_ - pos_; }

 private:
  const char* data_;
  std::size_t size_;
  std::string path_;
  const char* kind_;
  std::size_t pos_ = 0;
};

}  // namespace parsgd::io_internal
