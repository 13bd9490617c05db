// Internal to parsgd's binary files (model files from version 6, binary caches): the record of a
// CSV table: the columns
// (data/csv_schema.hpp), the weight column and the missing-value rule.
#pragma once

#include <memory>
#include <string>

#include "binary_fields.hpp"
#include "parsgd/io/model_file.hpp"

namespace parsgd::io_internal {

// The longest column name or categorical value recorded (bytes).
inline constexpr std::size_t kMaxRecordedText = 4096;

// Appends the record of a table read with `schema` (4 bytes 0 where null), `weight_column` and
// `missing`. Throws parsgd::Error for a name or value longer than kMaxRecordedText.
void PutCsvRecord(std::string& head, const CsvSchema* schema, const std::string& weight_column,
                  CsvMissing missing);
inline void PutCsvRecord(std::string& head, const DataReading& reading) {
  PutCsvRecord(head, reading.csv_schema.get(), reading.csv_weight_column, reading.csv_missing);
}

// Reads a record: the schema (null where there is none; the other two then unchanged). Throws
// DataError naming `path` for a truncated or inconsistent one (checked before any allocation).
void ReadCsvRecord(FieldReader& in, std::shared_ptr<const CsvSchema>& schema,
                   std::string& weight_column, CsvMissing& missing, const std::string& path);
inline void ReadCsvRecord(FieldReader& in, DataReading& reading, const std::string& path) {
  ReadCsvRecord(in, reading.csv_schema, reading.csv_weight_column, reading.csv_missing, path);
}

}  // namespace parsgd::io_internal
