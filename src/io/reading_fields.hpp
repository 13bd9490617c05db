// Internal to parsgd's binary files (model files, binary caches): how the training data's text was
// read, as fields: the class names and the hashing of words into features.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary_fields.hpp"
#include "parsgd/data/hashing.hpp"

namespace parsgd::io_internal {

// The longest class name recorded (bytes).
inline constexpr std::size_t kMaxRecordedName = 4096;

// 4 bytes H (uint32): 0 not hashed; 1 fastText's format, and 16 bytes follow (uint32 each: bits,
// word n-grams, character n-grams' min and max); 2 VW's format, and 4 bytes of bits, 4 bytes of
// length I (at most 4096) and I bytes of interactions. Throws parsgd::Error for longer
// interactions.
void PutHashing(std::string& out, const std::optional<TextHashing>& hashing);
// Reads it; throws DataError naming `path` for an unknown kind, a length past the limit or a
// hashing CheckTextHashing refuses.
std::optional<TextHashing> ReadHashing(FieldReader& in, const std::string& path);

// Per name, 4 bytes of length (at most 4096) and its bytes (the count is the caller's). Throws
// parsgd::Error for a longer name.
void PutNames(std::string& out, const std::vector<std::string>& names);
// `count` names; throws DataError naming `path` for one past the limit (or a truncated list);
// the count is checked against the bytes left before allocating.
std::vector<std::string> ReadNames(FieldReader& in, uint64_t count, const std::string& path);

}  // namespace parsgd::io_internal
