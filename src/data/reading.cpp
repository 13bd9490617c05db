#include "parsgd/data/reading.hpp"

#include <fmt/format.h>

#include "parsgd/util/error.hpp"

namespace parsgd {
namespace {

// The text format of hashed features.
DataFormat HashedFormat(const TextHashing& hashing) {
  return IsVw(hashing.format) ? DataFormat::kVw : DataFormat::kFasttext;
}

std::string DescribeHashing(const TextHashing& h) {
  std::string out = fmt::format("{} text hashed into 2^{} features",
                                IsVw(h.format) ? "VW" : "fastText", h.bits);
  if (IsVw(h.format)) {
    if (!h.interactions.empty()) out += fmt::format(" (interactions {})", h.interactions);
    if (h.format == HashedText::kVwAll) out += " (every name hashed as text)";
    return out;
  }
  out += fmt::format(" (word n-grams 1 to {}", h.ngrams);
  if (h.char_min > 0) out += fmt::format(", character n-grams {} to {}", h.char_min, h.char_max);
  return out + ")";
}

// What `data` holds, as DescribeReading says of a record.
std::string DescribeData(const Dataset& data) {
  DataReading reading = ReadingOf(data, ZeroBased::kAuto);
  if (reading.csv_schema == nullptr && data.hashing() == std::nullopt &&
      data.zero_based() == ZeroBased::kAuto) {
    return "columns of numbers";
  }
  return DescribeReading(reading);
}

}  // namespace

DataReading ReadingOf(const Dataset& train, ZeroBased zero_based) {
  DataReading reading{.zero_based =
                          train.zero_based() != ZeroBased::kAuto ? train.zero_based() : zero_based};
  // CSV text, or a binary cache of it: how the table was read, as the data records it.
  if (const std::shared_ptr<const CsvSchema>& schema = train.csv_schema()) {
    reading.csv_label_column = train.csv_reading().label_column;
    reading.csv_schema = schema;
    reading.csv_feature_columns = schema->columns.size();
    reading.csv_weight_column = train.csv_reading().weight_column;
    reading.csv_missing = train.csv_reading().missing;
  }
  reading.hashing = train.hashing();
  return reading;
}

std::string DescribeReading(const DataReading& reading) {
  if (reading.hashing) return DescribeHashing(*reading.hashing);
  if (reading.csv()) {
    return fmt::format("CSV text of {} feature columns",
                       reading.csv_schema ? reading.csv_schema->columns.size()
                                          : reading.csv_feature_columns);
  }
  if (reading.zero_based != ZeroBased::kAuto) return "LIBSVM text";
  return "columns of numbers";
}

std::string GivenFormatRefusal(const DataReading& reading, DataFormat format,
                               std::string_view whose) {
  if (format == DataFormat::kAuto || format == DataFormat::kBinary) return "";
  if (reading.hashing && format != HashedFormat(*reading.hashing)) {
    return fmt::format("--format {}: {} was {}; it is read as that text or a binary cache of it",
                       DataFormatName(format), whose, DescribeReading(reading));
  }
  if (!reading.hashing && reading.csv() && format != DataFormat::kCsv) {
    return fmt::format("--format {}: {} was {}; it is read as CSV text or a binary cache of it",
                       DataFormatName(format), whose, DescribeReading(reading));
  }
  return "";
}

void ReadAlike(const DataReading& reading, const std::string& path, std::string_view whose,
               LoadOptions& options) {
  if (const std::string refusal = GivenFormatRefusal(reading, options.format, whose);
      !refusal.empty()) {
    throw Error(refusal);
  }
  const DataFormat detected =
      options.format != DataFormat::kAuto ? options.format : DetectDataFormat(path);
  const std::string described = DescribeReading(reading);
  if (reading.hashing) {
    if (detected == DataFormat::kIdx) {
      throw DataError(path, 0, 0,
                      fmt::format("{}, but {} was {}", FormatOf(detected).what, whose, described));
    }
    // A file to predict may lack the __label__ words that tell fastText text apart.
    options.format =
        detected == DataFormat::kBinary ? detected : HashedFormat(*reading.hashing);
    options.hashing = *reading.hashing;
    return;
  }
  if (!reading.csv()) return;
  options.csv_schema = reading.csv_schema;
  if (detected == DataFormat::kCsv || detected == DataFormat::kBinary ||
      detected == DataFormat::kAuto) {
    return;
  }
  throw DataError(path, 0, 0,
                  fmt::format("{}, but {} was {}: give a table of its columns (--format csv "
                              "reads a file as one)",
                              FormatOf(detected).what, whose, described));
}

void CheckReadAlike(const DataReading& reading, const Dataset& data, std::string_view whose) {
  const std::string& path = data.source();
  const std::optional<TextHashing>& hashing = data.hashing();
  if (reading.hashing != hashing) {
    throw DataError(path, 0, 0,
                    fmt::format("{}, but {} was {}: its features would not be the model's",
                                DescribeData(data), whose, DescribeReading(reading)));
  }
  if (reading.csv_schema && data.csv_schema() != reading.csv_schema &&
      (data.csv_schema() == nullptr || *data.csv_schema() != *reading.csv_schema)) {
    throw DataError(path, 0, 0,
                    fmt::format("{}, but {} was {}: {}", DescribeData(data), whose,
                                DescribeReading(reading),
                                data.csv_schema() ? "another table's columns"
                                                  : "its features would not be the model's"));
  }
}

}  // namespace parsgd
