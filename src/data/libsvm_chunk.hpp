// Internal to the LIBSVM reader: parsing one chunk of whole lines into local buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parsgd::libsvm_internal {

// 1-based indices must stay below 2^32 (they are stored 0-based as uint32).
inline constexpr uint64_t kIndexLimit = uint64_t{1} << 32;

// The first malformed line of a chunk. `line` counts lines from the chunk start (0-based).
struct ChunkError {
  uint64_t line;
  uint64_t column;  // 1-based byte column of the offending token
  std::string message;
};

// What one chunk holds: its rows in local CSR form (row_ends[r] is the local end offset of row r).
struct Chunk {
  std::vector<float> labels;
  std::vector<uint64_t> row_ends;
  std::vector<uint32_t> indices;  // 0-based
  std::vector<float> values;
  uint64_t lines = 0;      // '\n' characters consumed (all of them when there is no error)
  uint64_t max_index = 0;  // largest 1-based index seen, 0 if none
  std::optional<ChunkError> error;
};

// Parses `text` (whole lines; the last may lack '\n') into `chunk`. Stops at the first malformed
// line and records it in chunk->error. max_features == 0 means no limit.
void ParseChunk(std::string_view text, uint64_t max_features, Chunk* chunk);

}  // namespace parsgd::libsvm_internal
