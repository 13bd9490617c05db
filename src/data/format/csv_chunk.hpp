// Internal to the CSV reader: parsing one chunk of whole lines into local buffers.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "parsgd/data/csv.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd::csv_internal {

// RowShape::weight's "no weight column".
inline constexpr uint64_t kNoColumn = ~uint64_t{0};

// What a feature field holds: a number; a number or else a categorical value (a column whose kind
// the whole file decides); always a categorical value (its text, numbers included); anything,
// unread (a column left out: CsvOptions::ignore_columns).
enum class FieldKind : uint8_t { kNumber, kAuto, kCategory, kIgnored };

// A feature field's kind and its feature column (0-based among the feature columns, in the
// schema's order: the file's own, or the model's where columns are matched by name).
struct FieldRole {
  FieldKind kind = FieldKind::kNumber;
  uint32_t column = 0;
};

// The shape every data line must have.
struct RowShape {
  uint64_t fields;  // fields per line (at least 1)
  uint64_t label;   // the label's field, 0-based; `fields`: none (every label 0)
  char delimiter;   // between the fields: ',', '\t', ';' or '|' (DetectDelimiter), or the user's
  CsvMissing missing = CsvMissing::kError;  // a missing feature value: an error, or 0
  uint64_t weight = kNoColumn;  // the weight's field, 0-based, or none
  // Per field (the label's and weight's unused): its role; empty: every feature field a number,
  // its column its position with the label and weight columns left out.
  std::vector<FieldRole> roles = {};
  uint32_t feature_columns = 0;  // with roles: the number of feature columns
};

// Parses `text` (whole lines; the last may lack '\n') into `chunk`: per line the label and the
// nonzero features (indices their feature columns; categorical values as Chunk::categories, at
// the row's end), and the weight where there is a weight column (chunk->weights). Stops at the
// first malformed line and records it in chunk->error.
void ParseChunk(std::string_view text, const RowShape& shape, data_internal::Chunk* chunk);

// The delimiter of a line (its first): the most frequent of ',', tab, ';' and '|' outside double
// quotes, the first of them in that order on a tie, ',' where there is none (one column).
char DetectDelimiter(std::string_view line);

}  // namespace parsgd::csv_internal
