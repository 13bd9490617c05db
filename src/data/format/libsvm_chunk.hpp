// Internal to the LIBSVM reader: parsing one chunk of whole lines into local buffers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsgd/data/libsvm.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd::libsvm_internal {

using data_internal::Chunk;

// Stored 0-based indices are uint32 and a dataset has at most 2^32 - 1 features, so a one-based
// index must stay below 2^32 and a zero-based one below 2^32 - 1.
inline constexpr uint64_t kIndexLimit = uint64_t{1} << 32;

// What indices a chunk accepts. Indices are stored as written (raw); the reader subtracts 1 when
// the file is one-based.
struct IndexRules {
  bool zero_allowed = false;           // index 0 is accepted (zero-based, or not decided yet)
  uint64_t largest = kIndexLimit - 1;  // the largest raw index accepted
  uint64_t max_features = 0;           // for messages: the limit the user set, 0 if none
  bool zero_based = false;             // for messages: the indices are zero-based
  std::string zero_note;  // what the error for an index 0 says after "feature index 0: "
};

// The index rules of `options` (a one-based file's largest index is one more than a zero-based
// file's).
IndexRules RulesFor(const LibsvmOptions& options);

// Throws parsgd::Error for a --features too large for 32-bit indices, naming `name`.
void CheckMaxFeatures(const std::string& name, const LibsvmOptions& options);

// Parses `text` (whole lines; the last may lack '\n') into `chunk`. Stops at the first malformed
// line and records it in chunk->error.
void ParseChunk(std::string_view text, const IndexRules& rules, Chunk* chunk);

}  // namespace parsgd::libsvm_internal
