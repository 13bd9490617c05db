// Internal to the CSV reader: parsing one chunk of whole lines into local buffers.
#pragma once

#include <cstdint>
#include <string_view>

#include "parsgd/data/csv.hpp"
#include "text_chunks.hpp"

namespace parsgd::csv_internal {

// RowShape::weight's "no weight column".
inline constexpr uint64_t kNoColumn = ~uint64_t{0};

// The shape every data line must have.
struct RowShape {
  uint64_t fields;  // fields per line (at least 1)
  uint64_t label;   // the label's field, 0-based; `fields`: none (every label 0)
  char delimiter;   // between the fields: ',', '\t' or ';' (DetectDelimiter), or the user's
  CsvMissing missing = CsvMissing::kError;  // a missing feature value: an error, or 0
  uint64_t weight = kNoColumn;  // the weight's field, 0-based, or none
};

// Parses `text` (whole lines; the last may lack '\n') into `chunk`: per line the label and the
// nonzero features (indices 0-based, the label and weight columns left out), and the weight where
// there is a weight column (chunk->weights). Stops at the first malformed
// line and records it in chunk->error.
void ParseChunk(std::string_view text, const RowShape& shape, data_internal::Chunk* chunk);

// The delimiter of a line (its first): the most frequent of ',', tab and ';' outside double quotes,
// ',' on a tie or where there is none (one column).
char DetectDelimiter(std::string_view line);

}  // namespace parsgd::csv_internal
