// Internal to the CSV reader: parsing one chunk of whole lines into local buffers.
#pragma once

#include <cstdint>
#include <string_view>

#include "text_chunks.hpp"

namespace parsgd::csv_internal {

// The shape every data line must have.
struct RowShape {
  uint64_t fields;  // fields per line (at least 1)
  uint64_t label;   // the label's field, 0-based; `fields`: none (every label 0)
};

// Parses `text` (whole lines; the last may lack '\n') into `chunk`: per line the label and the
// nonzero features (indices 0-based, the label column left out). Stops at the first malformed
// line and records it in chunk->error.
void ParseChunk(std::string_view text, const RowShape& shape, data_internal::Chunk* chunk);

// The number of ',' plus one in [begin, end): the fields of a line without quotes.
uint64_t CountFields(const char* begin, const char* end);

}  // namespace parsgd::csv_internal
