// Internal to the CSV reader: the chunks' categorical values made features (data/csv_schema.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "parsgd/data/csv_schema.hpp"
#include "data/format/text_chunks.hpp"

namespace parsgd::csv_internal {

// What a CSV text's rows say of its feature columns, gathered chunk by chunk in text order (the
// whole text's chunks, or a stream's as they pass): per column, whether text was read in it and
// whether a number was where the column could hold either; with `collect`, each column's
// categorical values (the vocabulary a one-hot encoding needs); whether any chunk holds a row;
// and whether the label of a first line that may be a header is any other row's.
class CsvSurvey {
 public:
  CsvSurvey(uint64_t columns, bool collect)
      : text_in_(columns, false), numbers_in_(columns, false), values_(collect ? columns : 0) {}

  // The first line read as a row (`head`, one row). Its text counts only where it is known to be
  // data (`is_data`): a header's names are not values. Call before Add.
  void AddHead(const data_internal::Chunk& head, bool is_data);
  void Add(const data_internal::Chunk& chunk);

  const std::vector<bool>& text_in() const { return text_in_; }
  // Numbers in the column, the first line's included (a header has none).
  const std::vector<bool>& numbers_in() const { return numbers_in_; }
  // Whether a chunk after the first line held a row, and whether the first line did.
  bool any_row() const { return any_row_; }
  bool head_row() const { return head_row_; }
  bool label_seen() const { return label_seen_; }
  // Column c's values met (collect), sorted and each once.
  std::vector<std::string> Values(uint64_t c) const;

 private:
  void AddColumns(const data_internal::Chunk& chunk, bool text);

  std::vector<bool> text_in_, numbers_in_;
  std::vector<std::unordered_set<std::string>> values_;
  bool any_row_ = false, head_row_ = false, label_seen_ = false;
  // The first line's label where it may be a header: text (head_text_) or a number.
  std::optional<std::string> head_text_;
  std::optional<float> head_number_;
};

// The schema of a table whose parts (files) were each read by itself, `parts` their names and
// schemas: the same feature columns (by count, and by name where both have a header), categorical
// in every part or in none, the one-hot values the union of the parts' (the first part's names).
// Throws DataError naming the part that differs from the first.
CsvSchema MergeSchemas(const std::vector<std::pair<std::string, const CsvSchema*>>& parts);

// EncodeCategories of one chunk.
uint64_t EncodeCategories(data_internal::Chunk& chunk, const CsvSchema& schema, bool sort_rows);

// Makes every chunk's categorical entries features as `schema` lays them out (a one-hot value not
// among the column's values is left out), then, where `sort_rows` or the values are hashed, sorts
// each row's entries by feature and adds up those of one feature (dropping sums of 0). Chunks in
// parallel (oneTBB, the caller's arena). Returns the count of values left out.
uint64_t EncodeCategories(std::vector<data_internal::Chunk>& chunks, const CsvSchema& schema,
                          bool sort_rows);

}  // namespace parsgd::csv_internal
