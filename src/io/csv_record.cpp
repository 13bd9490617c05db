// Layout (after the hashed-text field H):
//   4  R (uint32): 0 no record; else the record's version, 1 to 3 (the lowest that holds it):
//   4  flags (uint32): bit 0 the columns are named (CsvSchema::named)
//   4  label column name length + the name (CsvSchema::label_name)
//   4  hash bits of the categorical values (0: one-hot)
//   8  column count C, then per column:
//        4 name length + the name; 4 categorical (0 or 1); for a one-hot categorical column,
//        8 value count V and per value 4 bytes of length + its bytes (strictly ascending)
//   4  weight column length + the weight column as given (empty: none)
//   4  missing values (CsvMissing: 0 error, 1 zero, 2 mean, 3 median, 4 most frequent,
//      5 indicator)
// version 2 adds the columns left out (CsvSchema::ignored; a record without any is version 1):
//   8  count I, then per column: 4 name length + the name (empty: none), 8 its field
// version 3 adds the fills of the missing values (CsvSchema::fills; a record without is version
// 1 or 2):
//   8  count F (0 or C), then per column: 4 the feature (uint32; 0xFFFFFFFF none), 4 its value
//      (float32), 4 indicator (0 or 1)
// version 4 adds the centres of the number columns (CsvSchema::centres; a record without is
// version 1 to 3):
//   8  count K (0 or C), then per column 4 its centre (float32; 0 for a categorical column)
#include "csv_record.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "parsgd/util/error.hpp"

namespace parsgd::io_internal {
namespace {

void PutText(std::string& head, const std::string& text, const char* what) {
  if (text.size() > kMaxRecordedText) {
    throw Error(fmt::format("a CSV {} of {} bytes: at most {} are recorded", what, text.size(),
                            kMaxRecordedText));
  }
  PutField<uint32_t>(head, static_cast<uint32_t>(text.size()));
  head += text;
}

std::string GetText(FieldReader& in, const char* what, const std::string& path) {
  const auto length = in.Get<uint32_t>(what);
  if (length > kMaxRecordedText) {
    throw DataError(path, 0, 0,
                    fmt::format("a CSV {} of {} bytes: at most {} are recorded", what, length,
                                kMaxRecordedText));
  }
  return in.Text(length, what);
}

}  // namespace

void PutCsvRecord(std::string& head, const CsvSchema* schema, const std::string& weight_column,
                  CsvMissing missing) {
  if (schema == nullptr) {
    PutField<uint32_t>(head, 0);
    return;
  }
  const uint32_t version = !schema->centres.empty() ? 4
                           : !schema->fills.empty()   ? 3
                           : !schema->ignored.empty() ? 2
                                                      : 1;
  PutField<uint32_t>(head, version);
  PutField<uint32_t>(head, schema->named ? 1 : 0);
  PutText(head, schema->label_name, "label column name");
  PutField<uint32_t>(head, schema->hash_bits);
  PutField<uint64_t>(head, schema->columns.size());
  for (const CsvColumn& column : schema->columns) {
    PutText(head, column.name, "column name");
    PutField<uint32_t>(head, column.categorical ? 1 : 0);
    if (!column.categorical || schema->hash_bits != 0) continue;
    PutField<uint64_t>(head, column.values.size());
    for (const std::string& value : column.values) PutText(head, value, "categorical value");
  }
  PutText(head, weight_column, "weight column");
  PutField<uint32_t>(head, static_cast<uint32_t>(missing));
  if (version < 2) return;
  PutField<uint64_t>(head, schema->ignored.size());
  for (const CsvIgnored& left_out : schema->ignored) {
    PutText(head, left_out.name, "left-out column name");
    PutField<uint64_t>(head, left_out.field);
  }
  if (version < 3) return;
  PutField<uint64_t>(head, schema->fills.size());
  for (const CsvFill& fill : schema->fills) {
    PutField<uint32_t>(head, fill.feature);
    PutField<float>(head, fill.value);
    PutField<uint32_t>(head, fill.indicator ? 1 : 0);
  }
  if (version < 4) return;
  PutField<uint64_t>(head, schema->centres.size());
  for (const float centre : schema->centres) PutField<float>(head, centre);
}

void ReadCsvRecord(FieldReader& in, std::shared_ptr<const CsvSchema>& schema_out,
                   std::string& weight_column, CsvMissing& missing_out, const std::string& path) {
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, "CSV record: " + what); };
  const auto present = in.Get<uint32_t>("CSV record");
  if (present > 4) throw bad(fmt::format("unknown version {}: expected 0 to 4", present));
  if (present == 0) return;
  auto schema = std::make_shared<CsvSchema>();
  const auto flags = in.Get<uint32_t>("CSV flags");
  if (flags > 1) throw bad(fmt::format("unknown flags {}", flags));
  schema->named = flags == 1;
  schema->label_name = GetText(in, "label column name", path);
  schema->hash_bits = in.Get<uint32_t>("categorical hash bits");
  if (schema->hash_bits > kMaxHashBits) throw bad(fmt::format("{} hash bits", schema->hash_bits));
  const auto columns = in.Get<uint64_t>("CSV column count");
  // Each column takes at least 8 bytes: a count above the bytes left is a broken file.
  if (columns > in.left() / 8) throw bad(fmt::format("{} columns in {} bytes", columns, in.left()));
  schema->columns.resize(columns);
  for (CsvColumn& column : schema->columns) {
    column.name = GetText(in, "column name", path);
    const auto categorical = in.Get<uint32_t>("categorical flag");
    if (categorical > 1) throw bad(fmt::format("categorical flag {}", categorical));
    column.categorical = categorical == 1;
    if (!column.categorical || schema->hash_bits != 0) continue;
    const auto values = in.Get<uint64_t>("categorical value count");
    if (values > in.left() / 4) throw bad(fmt::format("{} values in {} bytes", values, in.left()));
    column.values.reserve(values);
    for (uint64_t v = 0; v < values; ++v) {
      column.values.push_back(GetText(in, "categorical value", path));
      if (v > 0 && !(column.values[v - 1] < column.values[v])) {
        throw bad(fmt::format("column '{}''s values are not strictly ascending", column.name));
      }
    }
  }
  if (schema->Features() > (uint64_t{1} << 32)) throw bad("more than 2^32 features");
  std::string weight = GetText(in, "weight column", path);
  const auto missing = in.Get<uint32_t>("missing values");
  if (missing > static_cast<uint32_t>(kLastCsvMissing)) {
    throw bad(fmt::format("unknown missing-value rule {}", missing));
  }
  if (present >= 2) {
    const auto count = in.Get<uint64_t>("left-out column count");
    // Each takes at least 12 bytes.
    if (count > in.left() / 12) throw bad(fmt::format("{} left-out columns in {} bytes", count, in.left()));
    schema->ignored.resize(count);
    for (CsvIgnored& left_out : schema->ignored) {
      left_out.name = GetText(in, "left-out column name", path);
      left_out.field = in.Get<uint64_t>("left-out column field");
    }
  }
  if (present >= 3) {
    const auto count = in.Get<uint64_t>("fill count");
    if (count != 0 && count != schema->columns.size()) {
      throw bad(fmt::format("{} fills for {} columns", count, schema->columns.size()));
    }
    schema->fills.resize(count);
    for (CsvFill& fill : schema->fills) {
      fill.feature = in.Get<uint32_t>("fill feature");
      fill.value = in.Get<float>("fill value");
      const auto indicator = in.Get<uint32_t>("fill indicator");
      if (indicator > 1 || !std::isfinite(fill.value) ||
          (fill.feature != kNoFill && fill.feature >= schema->BaseFeatures())) {
        throw bad(fmt::format("a fill of feature {} and value {} (indicator {})", fill.feature,
                              fill.value, indicator));
      }
      fill.indicator = indicator == 1;
    }
  }
  if (present >= 4) {
    const auto count = in.Get<uint64_t>("centre count");
    if (count != 0 && count != schema->columns.size()) {
      throw bad(fmt::format("{} centres for {} columns", count, schema->columns.size()));
    }
    schema->centres.resize(count);
    for (uint64_t c = 0; c < count; ++c) {
      const float centre = in.Get<float>("centre");
      if (!std::isfinite(centre) || (centre != 0 && schema->columns[c].categorical)) {
        throw bad(fmt::format("a centre {} of column {}", centre, c));
      }
      schema->centres[c] = centre;
    }
  }
  if (!schema->columns.empty() &&
      Imputes(static_cast<CsvMissing>(missing)) != !schema->fills.empty()) {
    throw bad(fmt::format("missing-value rule {} with {} fills", missing, schema->fills.size()));
  }
  weight_column = std::move(weight);
  missing_out = static_cast<CsvMissing>(missing);
  schema_out = std::move(schema);
}

}  // namespace parsgd::io_internal
