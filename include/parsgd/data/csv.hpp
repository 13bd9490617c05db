// CSV text (tabular data: one row per line, one column the label): reading, parallel and
// memory-mapped.
//
// Format:
//   - fields separated by ',', tab or ';' (CsvOptions::delimiter: given, or detected on the first
//     line); LF or CRLF line ends; blank lines are not rows; a UTF-8 byte order mark at the start
//     is ignored.
//   - a header line of column names, or none (CsvOptions::header; with kAuto see docs/data.md:
//     a header when a feature field is not a number, or when its only text is a label no other
//     row has, or when it numbers the columns and its label is no other row's). Names may be
//     quoted ("a,b", with "" for a quote inside).
//   - every row has as many fields as the first line; each feature field is a number (as in
//     LIBSVM text: finite, a leading '+' allowed), with spaces (and tabs, where they do not
//     separate the fields) around it allowed, or a missing value (an empty field, NA, N/A, ?,
//     NaN, nan, null, NULL, None): an error naming it, or 0 (not stored) under CsvMissing::kZero.
//     A missing label (unquoted: a quoted "NA" is a class name) is always an error.
//   - one column is the label (CsvOptions::label_column; the first by default): numbers, or class
//     names where any label is not a number (Dataset::class_names, sorted; quoted like names);
//     the others are the features, numbered from 0 in file order with the label column left out.
//     Zero values are not stored (rows are sparse, as for every format). A feature column of text
//     is categorical (CsvOptions::categorical_auto), its values one-hot or hashed features
//     (data/csv_schema.hpp); Dataset::csv_schema records the columns.
// Errors name the place as "name:line:column" (1-based; the column is the byte where the field
// starts) and the field by its 1-based number. All functions here may be called from several
// threads at once (they share no state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

enum class CsvHeader { kAuto, kYes, kNo };

// Whether a field's text (trimmed, unquoted) is a missing value.
inline bool IsMissingValue(std::string_view text) {
  for (std::string_view word : {"", "NA", "N/A", "?", "NaN", "nan", "null", "NULL", "None"}) {
    if (text == word) return true;
  }
  return false;
}

// The longest class name a label may be (a model file records each).
inline constexpr std::size_t kMaxClassNameBytes = 4096;

// CsvOptions::label_column's word for "the file has no label column".
inline constexpr std::string_view kNoLabelColumn = "none";

struct CsvOptions {
  CsvHeader header = CsvHeader::kAuto;
  // Between the fields: ',', '\t', ';' or any other byte but a quote, a line break or a space;
  // 0: the most frequent of ',', tab and ';' on the first line, ',' on a tie.
  char delimiter = 0;
  // The label column: empty for the first; an integer for a 0-based position (as xgboost's and
  // LightGBM's label_column; negative counts from the end, -1 is the last); kNoLabelColumn for
  // none (every column a feature, every label 0: data to predict); anything else is a column
  // name, looked up in the header.
  std::string label_column = {};
  // Added to the message when the label column is not in the file (for example where the column
  // came from: a model's record).
  std::string label_column_note = {};
  CsvMissing missing = CsvMissing::kError;
  // The weight column, by header name or 0-based position as label_column (empty: none): each
  // row's weight, a number >= 0 (Dataset::weights), not a feature.
  std::string weight_column = {};
  // Columns left out (LightGBM's ignore_column): neither features nor read (any text, missing
  // values too), by header name or 0-based position as label_column; not the label's or the
  // weight's. The schema records them (CsvSchema::ignored).
  std::vector<std::string> ignore_columns = {};
  // A weight column named (not numbered) but not in the header is no weight column, not an error
  // (data to predict, read by a model's record of its training data's weight column).
  bool weight_column_optional = false;
  // Data to predict: a label column named but not in the header is none (every label 0).
  bool labels_optional = false;
  // The label column was not given for this file (label_column is the training data's): a file
  // with a header read by a named schema (below) whose header has the schema's label name finds
  // its label there.
  bool label_by_schema = false;
  // Categorical columns (data/csv_schema.hpp): with categorical_auto, a feature column with a
  // value that is not a number (or is quoted) is categorical, every value of it a category (a
  // column mixing numbers and text is read again as such); the columns in `categorical` (header
  // names or 0-based positions, as label_column) are categorical whatever their values. Without
  // categorical_auto and outside `categorical`, text in a feature column is an error.
  bool categorical_auto = true;
  std::vector<std::string> categorical = {};
  uint32_t category_hash_bits = 0;  // 0: categorical values one-hot; else hashed into 2^bits
  // Another file of a table read before (a model's training data, a run's training file): this
  // one is read by its schema (columns matched by name where both files have a header, the label
  // column too unless label_column names one; else by position and then of the same count; each
  // categorical value encoded as there; the settings above unused). `schema_source` names that table in messages.
  std::shared_ptr<const CsvSchema> schema = nullptr;
  std::string schema_source = "the training data";
  // Size of the pieces the text is cut into for parallel parsing, as LibsvmOptions::chunk_bytes
  // (0 picks one from the text size; the result never depends on it).
  uint64_t chunk_bytes = 0;
};

// Maps `path` and parses it (see ParseCsv); a gzip-compressed file is parsed as it inflates, in
// pieces of chunk_bytes (default 2 MiB), never held whole (a column found to hold numbers and text
// inflates it a second time). Throws parsgd::Error if the file cannot be read, DataError if its
// gzip stream is damaged or cut short.
Dataset ReadCsv(const std::string& path, const CsvOptions& options = {});

// Parses CSV text; `name` is the source and is used in messages. Parallel over chunks of whole
// lines (oneTBB, the caller's arena); the result is the same at any thread count and chunk size.
// features() is the number of columns minus one (all of them with kNoLabelColumn). Throws DataError
// "name:line:column: ..." for a malformed field (the first in the text), "name: ..." for a text
// without data rows, and parsgd::Error for a label column that is not in the file. Cost: one pass
// over the text plus one copy of the parsed entries.
Dataset ParseCsv(std::string_view text, const std::string& name, const CsvOptions& options = {});

// The number of columns of the CSV file at `path` (of its first non-blank line, a header or a
// row; `delimiter` as CsvOptions::delimiter), without parsing the rows; 0 for a file without one.
// Throws parsgd::Error if the file cannot be read, the readers' errors for a malformed first line.
uint64_t CsvColumns(const std::string& path, char delimiter = 0);

}  // namespace parsgd
