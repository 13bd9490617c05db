// Internal to the CSV reader: the chunks' categorical values made features (data/csv_schema.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "parsgd/data/csv_schema.hpp"
#include "text_chunks.hpp"

namespace parsgd::csv_internal {

// Per feature column (`columns` of them): whether any chunk read text in it, and whether any read
// a number where the column could hold either.
std::vector<bool> ColumnsWithText(const std::vector<data_internal::Chunk>& chunks, uint64_t columns);
std::vector<bool> ColumnsWithNumbers(const std::vector<data_internal::Chunk>& chunks,
                                     uint64_t columns);

// The values of each categorical column of `schema` met in the chunks, sorted and each once, into
// the column's `values` (one-hot training).
void CollectValues(const std::vector<data_internal::Chunk>& chunks, CsvSchema& schema);

// Makes every chunk's categorical entries features as `schema` lays them out (a one-hot value not
// among the column's values is left out), then, where `sort_rows` or the values are hashed, sorts
// each row's entries by feature and adds up those of one feature (dropping sums of 0). Chunks in
// parallel (oneTBB, the caller's arena). Returns the count of values left out.
uint64_t EncodeCategories(std::vector<data_internal::Chunk>& chunks, const CsvSchema& schema,
                          bool sort_rows);

}  // namespace parsgd::csv_internal
