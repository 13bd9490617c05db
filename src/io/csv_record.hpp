// Internal to the model file: its record of a CSV table (model_file.hpp, version 6): the columns
// (data/csv_schema.hpp), the weight column and the missing-value rule.
#pragma once

#include <string>

#include "binary_fields.hpp"
#include "parsgd/io/model_file.hpp"

namespace parsgd::io_internal {

// The longest column name or categorical value recorded (bytes).
inline constexpr std::size_t kMaxRecordedText = 4096;

// Appends the record of `reading` (4 bytes 0 where it has no CSV schema). Throws parsgd::Error
// for a name or value longer than kMaxRecordedText.
void PutCsvRecord(std::string& head, const DataReading& reading);

// Reads the record into `reading`; throws DataError naming `path` for a truncated or
// inconsistent one (checked before any allocation).
void ReadCsvRecord(FieldReader& in, DataReading& reading, const std::string& path);

}  // namespace parsgd::io_internal
